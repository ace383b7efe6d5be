#!/usr/bin/env node
// The `vigil` command: a shim over the compiled entry point (`npm install` builds dist/).
import { main } from '../dist/bin/main.js';

await main(process.argv.slice(2));
