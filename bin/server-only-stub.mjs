// Stands in for the 'server-only' marker in the CLI bundle (see bin/claimboard.mjs).
export {};
