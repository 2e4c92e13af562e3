// The chat's markdown renderer (markdown-it) only decodes character references: give it entities'
// decoder alone, without the encoding table (23 KB) the package's index brings with it.
export { decodeHTML, decodeHTMLStrict } from '../../node_modules/entities/lib/esm/decode.js';
