// Unit tests of the panel's logic: the pure modules (tree model, filter, snippets, errors) need no
// browser and no JupyterLab, so they run under ts-jest in Node.
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.spec.ts'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }]
  }
};
