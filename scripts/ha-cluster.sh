#!/usr/bin/env bash
# A PostgreSQL cluster as a busy site runs one, on this machine's local ports, for the HA tests
# (`npm run test:ha`) and to try a deployment: one etcd member, three PostgreSQL 15 nodes under
# Patroni (synchronous_mode: a commit is acknowledged once a standby has it), and HAProxy with a
# write port that follows the primary and a read port over the replicas. Debian's packages
# (apt-get install patroni etcd-server haproxy); as root, everything runs as the postgres user.
#
#   scripts/ha-cluster.sh start DIR    starts it in DIR (made, empty), waits for a primary and a
#                                      synchronous standby, and prints the URLs as shell variables
#                                      (the standbys' own in CMS_HA_REPLICA_URLS, for read replicas)
#   scripts/ha-cluster.sh stop DIR     stops everything it started and removes DIR
#   scripts/ha-cluster.sh node N DIR   starts node N's Patroni again (after a test killed it)
#
# Ports: etcd 2479 (peer 2480), PostgreSQL 5441-5443, Patroni's REST API 8011-8013, HAProxy
# 5450 (primary) and 5451 (replicas), HAProxy's status page 8050; CMS_HA_PORT_OFFSET (default 0)
# is added to each, for two clusters side by side. docs/guides/deploying.md walks through the
# same setup for production and what each setting protects.
set -euo pipefail

command=${1:?usage: ha-cluster.sh start|stop|node N DIR}
nodes=3
offset=${CMS_HA_PORT_OFFSET:-0}
etcd_port=$((2479 + offset)) etcd_peer_port=$((2480 + offset))
write_port=$((5450 + offset)) read_port=$((5451 + offset)) status_port=$((8050 + offset))
pg_port() { echo $((5440 + $1 + offset)); }
api_port() { echo $((8010 + $1 + offset)); }
pg_bin=${CMS_HA_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}

# From /, which every user may enter: the caller's directory may be root's alone (a CI clone),
# and HAProxy, for one, stops when it cannot go back to where it started.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then (cd / && su postgres -s /bin/sh -c "$*"); else sh -c "$*"; fi
}

wait_until() { # seconds, description, command...
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 5))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "ha-cluster: $what did not happen within ${seconds}s" >&2
  return 1
}

patroni_config() { # node number, dir
  local n=$1 dir=$2
  cat <<YAML
scope: cms-ha-$offset
name: node$n
log:
  dir: $dir/log
  file_num: 2
restapi:
  listen: 127.0.0.1:$(api_port $n)
  connect_address: 127.0.0.1:$(api_port $n)
etcd3:
  hosts: 127.0.0.1:$etcd_port
bootstrap:
  dcs:
    # The leader's key lives ttl seconds without a renewal: a primary that dies is replaced that
    # much later. loop_wait is how often each node looks; retry_timeout how long a node keeps
    # trying etcd and PostgreSQL before it demotes itself rather than risk two primaries.
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    # A standby further behind than this (bytes of WAL) is never promoted.
    maximum_lag_on_failover: 1048576
    # A commit is acknowledged only once a standby has it, and only that standby is promoted:
    # no acknowledged write is lost in a failover.
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 300
        # The tests' own speed: nothing here protects data beyond the test run.
        shared_buffers: 64MB
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - local all all trust
    - host replication postgres 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$(pg_port $n)
  connect_address: 127.0.0.1:$(pg_port $n)
  data_dir: $dir/node$n
  bin_dir: $pg_bin
  pgpass: $dir/pgpass$n
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
  # An old primary that pg_rewind cannot bring back (its WAL went further than the new primary's
  # history allows) is copied afresh from the new primary instead of staying down: with
  # synchronous_mode what it loses was never acknowledged.
  remove_data_directory_on_rewind_failure: true
  remove_data_directory_on_diverged_timelines: true
  parameters:
    unix_socket_directories: $dir
YAML
}

haproxy_config() { # dir
  local dir=$1 n
  cat <<CFG
global
  maxconn 2000
  pidfile $dir/haproxy.pid
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
  # A node marked down has its connections cut at once: a client never waits on a dead primary.
  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions
listen primary
  bind 127.0.0.1:$write_port
  option httpchk GET /primary
  http-check expect status 200
CFG
  for n in $(seq $nodes); do echo "  server node$n 127.0.0.1:$(pg_port $n) check port $(api_port $n)"; done
  cat <<CFG
listen replicas
  bind 127.0.0.1:$read_port
  balance roundrobin
  option httpchk GET /replica
  http-check expect status 200
CFG
  for n in $(seq $nodes); do echo "  server node$n 127.0.0.1:$(pg_port $n) check port $(api_port $n)"; done
  cat <<CFG
listen status
  mode http
  bind 127.0.0.1:$status_port
  stats enable
  stats uri /
CFG
}

start_patroni() { # node number, dir
  local n=$1 dir=$2
  as_postgres "cd $dir && nohup patroni $dir/patroni$n.yml >>$dir/log/patroni$n.out 2>&1 & echo \$! >$dir/patroni$n.pid"
}

is_primary() { curl -fsS -o /dev/null "http://127.0.0.1:$(api_port $1)/primary"; }
has_sync_standby() {
  curl -fsS "http://127.0.0.1:$(api_port 1)/cluster" | grep -q '"role": *"sync_standby"' ||
    curl -fsS "http://127.0.0.1:$(api_port 2)/cluster" | grep -q '"role": *"sync_standby"'
}
any_primary() { for n in $(seq $nodes); do is_primary "$n" && return 0; done; return 1; }
port_answers() { node -e "require('net').connect($1, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))"; }

start() {
  local dir=$1 n
  mkdir -p "$dir/log"
  [ -z "$(ls -A "$dir/log")" ] || { echo "ha-cluster: $dir is in use" >&2; exit 1; }
  for n in $(seq $nodes); do patroni_config "$n" "$dir" >"$dir/patroni$n.yml"; done
  haproxy_config "$dir" >"$dir/haproxy.cfg"
  [ "$(id -u)" = 0 ] && chown -R postgres "$dir"
  as_postgres "nohup etcd --name cms-ha --data-dir $dir/etcd \
    --listen-client-urls http://127.0.0.1:$etcd_port --advertise-client-urls http://127.0.0.1:$etcd_port \
    --listen-peer-urls http://127.0.0.1:$etcd_peer_port --initial-advertise-peer-urls http://127.0.0.1:$etcd_peer_port \
    --initial-cluster cms-ha=http://127.0.0.1:$etcd_peer_port >>$dir/log/etcd.out 2>&1 & echo \$! >$dir/etcd.pid"
  wait_until 20 "etcd answering" curl -fsS http://127.0.0.1:$etcd_port/health
  # The first node bootstraps the cluster; the others copy it once it is the primary.
  start_patroni 1 "$dir"
  wait_until 60 "node1 becoming the primary" is_primary 1
  for n in $(seq 2 $nodes); do start_patroni "$n" "$dir"; done
  as_postgres "haproxy -D -f $dir/haproxy.cfg"
  wait_until 90 "a synchronous standby" has_sync_standby
  wait_until 20 "HAProxy's write port" port_answers $write_port
  as_postgres "$pg_bin/psql -h 127.0.0.1 -p $write_port -U postgres -qAtc 'CREATE DATABASE test' postgres"
  echo "CMS_HA_DIR=$dir"
  echo "CMS_HA_WRITE_URL=postgres://postgres@127.0.0.1:$write_port/test"
  echo "CMS_HA_READ_URL=postgres://postgres@127.0.0.1:$read_port/test"
  # Each standby directly, comma-separated (CMS_DATABASE_READ_URL): Patroni answers 200 on /replica for one.
  local replicas=()
  for n in $(seq $nodes); do
    curl -fsS -o /dev/null "http://127.0.0.1:$(api_port "$n")/replica" 2>/dev/null && replicas+=("postgres://postgres@127.0.0.1:$(pg_port "$n")/test")
  done
  echo "CMS_HA_REPLICA_URLS=$(IFS=,; echo "${replicas[*]}")"
}

stop() {
  local dir=$1 pidfile
  [ -d "$dir" ] || return 0
  for pidfile in "$dir"/haproxy.pid "$dir"/patroni*.pid; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  # Patroni stops its PostgreSQL as it ends; one killed by a test left its postmaster behind.
  for n in $(seq $nodes); do
    [ -f "$dir/node$n/postmaster.pid" ] && as_postgres "$pg_bin/pg_ctl -D $dir/node$n stop -m immediate" >/dev/null 2>&1 || true
  done
  for _ in $(seq 50); do pgrep -f "patroni $dir/" >/dev/null || break; sleep 0.2; done
  [ -f "$dir/etcd.pid" ] && kill "$(cat "$dir/etcd.pid")" 2>/dev/null || true
  for _ in $(seq 50); do pgrep -f "etcd --name cms-ha --data-dir $dir" >/dev/null || break; sleep 0.2; done
  rm -rf "$dir"
}

case "$command" in
  start) start "${2:?DIR}" ;;
  stop) stop "${2:?DIR}" ;;
  node) start_patroni "${2:?N}" "${3:?DIR}" ;;
  *) echo "usage: ha-cluster.sh start|stop|node N DIR" >&2; exit 2 ;;
esac
