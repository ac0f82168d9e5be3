/** A placeholder entry so the build and its tests run; the dashboard's pages replace it. */
import { render } from 'preact';

render(<h1>Dashboard</h1>, document.getElementById('app') ?? document.body);
