#!/bin/sh
# mixed.sh THREADS : get-one p99 with a heavy sort load beside it
ID=$(node -e "console.log(JSON.parse(require('fs').readFileSync('/tmp/bdb/ids.json'))[5000])")
CMS_LIMIT_READ_THREADS=$1 CMS_LIMIT_RESPONSE_CACHE_ENTRIES=0 /work/main/.scratch/srv.sh 4101 > /tmp/srv-mixed.log 2>&1 &
sleep 3
cd /work/main
npx autocannon -c 2 -d 12 "http://127.0.0.1:4101/api/v1/article?sort[priority]=1&page=3" > /tmp/heavy.txt 2>&1 &
sleep 1
npx autocannon -c 50 -d 10 --json http://127.0.0.1:4101/api/v1/article/$ID:en:published 2>/dev/null | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s);console.log('threads=$1 get-one req/s',r.requests.average,'p50',r.latency.p50,'p99',r.latency.p99,'max',r.latency.max)})"
wait %2 2>/dev/null; sleep 2
grep -E "Req/Sec|requests in" /tmp/heavy.txt | tail -1
pkill -f "PORT=4101" ; pkill -f "dist/src/main.js"; sleep 1
