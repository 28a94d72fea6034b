import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/*
 * The Patroni cluster of scripts/ha-cluster.sh, driven from a test: started in a fresh directory
 * (or the one CI started, CMS_TEST_HA_DIR), its leader found and killed as a crash would kill
 * it, and the node brought back. Ports are the script's, plus CMS_HA_PORT_OFFSET.
 */

const script = fileURLToPath(new URL('../../../scripts/ha-cluster.sh', import.meta.url));
const run = promisify(execFile);

const nodes = [1, 2, 3] as const;

/** What the failover tests need installed (Debian's patroni, etcd-server, haproxy). */
const tools = ['patroni', 'etcd', 'haproxy'];

/** Why the cluster cannot run here (a tool missing), or false. */
export async function haClusterUnavailable(): Promise<false | string> {
  const missing: string[] = [];
  for (const tool of tools) {
    try {
      await run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      missing.push(tool);
    }
  }
  return missing.length === 0 ? false : `${missing.join(', ')} not installed (apt-get install patroni etcd-server haproxy): the failover test is skipped`;
}

export interface HaCluster {
  readonly dir: string;
  /** HAProxy's write port: the primary, whichever node that is. */
  readonly writeUrl: string;
  /** The node Patroni's REST API names as the leader, or undefined while there is none. */
  leader(): Promise<number | undefined>;
  /** Kills the leader's Patroni and postmaster with SIGKILL (a crash, no shutdown); resolves with its node. */
  killLeader(): Promise<number>;
  /** Resolves with the new leader once one other than `old` is running, within `timeoutMs`. */
  waitForNewLeader(old: number, timeoutMs?: number): Promise<number>;
  /**
   * The direct URLs (database `test`) of the standbys, once `count` of them stream, within
   * `timeoutMs`: a node brought back takes a moment to catch up.
   */
  standbyUrls(count: number, timeoutMs?: number): Promise<string[]>;
  /** Starts node `n`'s Patroni again (it rejoins as a standby, pg_rewind if need be). */
  restartNode(n: number): Promise<void>;
  /** Stops the cluster and removes its directory, unless CI started it. */
  stop(): Promise<void>;
}

const offset = Number(process.env.CMS_HA_PORT_OFFSET ?? 0);
const apiPort = (n: number) => 8010 + n + offset;
const postgresPort = (n: number) => 5440 + n + offset;

interface ClusterMember {
  readonly name: string;
  readonly role: string;
  readonly state: string;
}

async function members(): Promise<ClusterMember[]> {
  // Any node that answers knows the whole cluster (from etcd); a killed one does not answer.
  for (const n of nodes) {
    try {
      const res = await fetch(`http://127.0.0.1:${apiPort(n)}/cluster`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return ((await res.json()) as { members: ClusterMember[] }).members;
    } catch {
      // The next node.
    }
  }
  return [];
}

const nodeOf = (member: ClusterMember) => Number(member.name.replace(/^node/, ''));

/** Reads `KEY=value` lines the script prints on start. */
function variables(output: string): Record<string, string> {
  return Object.fromEntries(output.split('\n').flatMap((line) => {
    const found = /^(CMS_HA_\w+)=(.*)$/.exec(line.trim());
    return found ? [[found[1]!, found[2]!]] : [];
  }));
}

/** The cluster CMS_TEST_HA_DIR names (CI's), or a new one in a fresh directory. */
export async function startHaCluster(): Promise<HaCluster> {
  const given = process.env.CMS_TEST_HA_DIR?.trim();
  let dir: string;
  let owned: boolean;
  if (given) {
    dir = given;
    owned = false;
  } else {
    const parent = await mkdtemp(join(tmpdir(), 'cms-ha-'));
    dir = join(parent, 'cluster');
    owned = true;
    // Run as root, the script runs the cluster as the postgres user, who must reach the directory.
    await chmod(parent, 0o755);
    try {
      await run('bash', [script, 'start', dir], { env: { ...process.env, CMS_HA_PORT_OFFSET: String(offset) }, timeout: 240_000 });
    } catch (error) {
      await run('bash', [script, 'stop', dir]).catch(() => undefined);
      await rm(parent, { recursive: true, force: true });
      throw error;
    }
  }
  const writeUrl = process.env.CMS_TEST_HA_WRITE_URL?.trim() || `postgres://postgres@127.0.0.1:${5450 + offset}/test`;

  const leader = async () => {
    const found = (await members()).find((member) => member.role === 'leader' && member.state === 'running');
    return found ? nodeOf(found) : undefined;
  };

  const pidIn = async (file: string) => Number((await readFile(file, 'utf8')).split('\n')[0]);

  return {
    dir,
    writeUrl,
    leader,
    async killLeader() {
      const n = await leader();
      if (n === undefined) throw new Error('the cluster has no leader to kill');
      // Patroni first: killed after the postmaster, it could restart it before it died itself.
      process.kill(await pidIn(join(dir, `patroni${n}.pid`)), 'SIGKILL');
      const postmaster = join(dir, `node${n}`, 'postmaster.pid');
      if (existsSync(postmaster)) process.kill(await pidIn(postmaster), 'SIGKILL');
      return n;
    },
    async waitForNewLeader(old, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const n = await leader();
        if (n !== undefined && n !== old) return n;
        if (Date.now() > deadline) throw new Error(`no new leader within ${timeoutMs} ms of node${old}'s death`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async standbyUrls(count, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // Patroni answers 200 on /replica for a standby that runs and replicates.
        const standbys: number[] = [];
        for (const n of nodes) {
          const answer = await fetch(`http://127.0.0.1:${apiPort(n)}/replica`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
          await answer?.body?.cancel();
          if (answer?.status === 200) standbys.push(n);
        }
        if (standbys.length >= count) return standbys.map((n) => `postgres://postgres@127.0.0.1:${postgresPort(n)}/test`);
        if (Date.now() > deadline) throw new Error(`${standbys.length} standbys replicate, not ${count}, within ${timeoutMs} ms: ${JSON.stringify(await members())}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
    async restartNode(n) {
      await run('bash', [script, 'node', String(n), dir], { env: { ...process.env, CMS_HA_PORT_OFFSET: String(offset) } });
    },
    async stop() {
      if (!owned) return;
      await run('bash', [script, 'stop', dir], { env: { ...process.env, CMS_HA_PORT_OFFSET: String(offset) }, timeout: 60_000 });
      await rm(join(dir, '..'), { recursive: true, force: true });
    },
  };
}

/** Resolves once `leader` names a running node and it has a synchronous standby again. */
export async function waitForHealthyCluster(timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = await members();
    const running = (role: string) => all.some((member) => member.role === role && (member.state === 'running' || member.state === 'streaming'));
    if (running('leader') && running('sync_standby')) return;
    if (Date.now() > deadline) throw new Error(`the cluster is not healthy within ${timeoutMs} ms: ${JSON.stringify(all)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
