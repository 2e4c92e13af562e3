// Stands in for dom-serializer (and the entity tables it brings, ~75 KB) in dist/readableWorker.js:
// it reaches the bundle only through htmlparser2's feed helpers and css-select's text helpers, which
// the worker never calls; linkedom serializes its documents itself.
function render() {
  throw new Error('dom-serializer is not in this bundle');
}
module.exports = render;
module.exports.default = render;
module.exports.render = render;
