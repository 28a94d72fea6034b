#!/bin/sh
# start server on bench db: srv.sh PORT [extra node args]
cd /tmp/bdb
PORT=$1; shift
CMS_DATA_DIR=/tmp/bdb/data CMS_CONFIG=/tmp/bdb/cms.config.json CMS_API_KEYS=bench-admin-key-0123456789:admin CMS_LOG_LEVEL=warn PORT=$PORT HOST=127.0.0.1 exec node "$@" /work/main/dist/src/main.js
