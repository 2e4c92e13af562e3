// Stands in for turndown's own HTML parser (@mixmark-io/domino, ~300 KB) in dist/readableWorker.js:
// Tally gives turndown DOM nodes that linkedom parsed, never a string, so the parser is never used.
exports.createDocument = function createDocument() {
  throw new Error('turndown is given DOM nodes only in this bundle');
};
