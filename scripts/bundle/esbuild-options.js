// What every bundle kwatch ships is built with (the CLI's and the sim's, the executable's main script, its
// on-demand assets): one Node file, whitespace and syntax minified (names kept, for stack traces), no comments.
export const SHIPPED_BUNDLE = {
  bundle: true,
  platform: 'node',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
};
