export { SqlJsStore, type StoreOptions } from './sqlJsStore';
export { openStore } from './openStore';
export { startSqlWarmUp, type SqlWarmUp } from './sql/sqlWarmUp';
