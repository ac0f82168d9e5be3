/**
 * Layers point one way (docs/architecture.md "Project layout"): `shared/model` is the leaf vocabulary both the store and the
 * domain speak; the store never reaches up into the domain; the local runtime depends on no test file; and no module
 * imports itself through others. `npm run lint` fails on any violation; there are no exceptions here.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'an import circle: split the shared part into a module both sides import',
      from: {},
      to: { circular: true },
    },
    {
      name: 'store-not-domain',
      severity: 'error',
      comment: 'shared/store keeps records; what it shares with the domain lives in shared/model',
      from: { path: '^shared/store/' },
      to: { path: '^shared/domain/' },
    },
    {
      name: 'model-is-a-leaf',
      severity: 'error',
      comment: 'shared/model is the vocabulary under the store and the domain: it imports only itself, Node and packages',
      from: { path: '^shared/model/' },
      to: { path: '^(shared|functions|infra|test|bench|client)/', pathNot: '^shared/model/' },
    },
    {
      name: 'infra-not-test',
      severity: 'error',
      comment: 'the deployment and the local runtime depend on no test file',
      from: { path: '^infra/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|cdk\\.out|dist|coverage)/' },
    // type-only imports count: a layer that needs another's types depends on it
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
