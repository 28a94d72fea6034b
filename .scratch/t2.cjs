require('sharp'); const D=require('better-sqlite3'); const db=new D(':memory:'); console.log(db.prepare('select 1 as x').get());
