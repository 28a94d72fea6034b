import { describeOnPostgres, makePostgresAdapter, skipWithoutPostgres } from '../helpers/postgres.js';
import { runStorageContract } from './storage-adapter.contract.js';

// Every test of the contract gets an adapter on a schema of its own, dropped afterwards.
if (skipWithoutPostgres) describeOnPostgres('storage contract: postgres', () => undefined);
else runStorageContract('postgres', makePostgresAdapter);
