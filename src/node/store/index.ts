export { SqlJsStore, type StoreOptions } from './sqlJsStore';
export { openStore } from './openStore';
