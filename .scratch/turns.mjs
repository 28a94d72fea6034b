import { setImmediate as si } from 'node:timers';
let turns = 0, done = false;
const spin = () => { turns++; if (!done) setImmediate(spin); };
setImmediate(spin);
const start = turns;
const t = performance.now();
await new Promise((r) => setTimeout(r, 20));
done = true;
console.log('turns', turns - start, performance.now() - t);
