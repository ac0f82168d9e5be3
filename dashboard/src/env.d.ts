/** CSS files imported for their side effect: esbuild bundles them beside the script. */
declare module '*.css';
