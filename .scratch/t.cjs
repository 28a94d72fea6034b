console.log('a'); const D=require('better-sqlite3'); console.log('b'); const db=new D(':memory:'); console.log('c'); const s=db.prepare('select 1 as x'); console.log('d'); console.log(s.get());
