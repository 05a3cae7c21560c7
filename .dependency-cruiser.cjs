// The import-circle gate, run by `scripts/run lint`. dependency-cruiser rather than an ESLint
// rule: import-x/no-cycle skips every `import type`, so it misses circles made of type imports
// (issue 35 named two), and costs far more time than this whole check.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files that import each other, even for types only, are one concept spread over several homes: cut the circle.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Type imports are edges too (tsc elides them, but a reader still follows them).
    tsPreCompilationDeps: true,
    // Only files inside a package's src: workspace packages import each other by name, whose
    // project references cannot cycle, and tests, dist and node_modules are not followed.
    includeOnly: '^packages/[^/]+/src/',
  },
}
