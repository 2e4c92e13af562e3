// Stands in for the MCP SDK's Ajv validator in the bundles: Tally's client passes a validator of
// its own (results are untrusted text either way), so the JSON-schema compiler is never used.
class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('The JSON-schema validator is not bundled; pass jsonSchemaValidator to the MCP client.');
  }
}
module.exports = { AjvJsonSchemaValidator };
