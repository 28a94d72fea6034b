/**
 * A read that callers arriving together share, and that never answers a caller with a read begun
 * before it called. At most one read runs at a time: a caller that comes while one runs waits for
 * the next one, which begins as soon as the running one ends and answers every caller that came
 * meanwhile. Under load, one round trip to the store then answers as many callers as arrive within
 * it, instead of one round trip (and a pooled connection) each; alone, a caller waits for its own
 * read as before.
 *
 * That a shared read begins after its callers called is what makes it safe for data written by
 * other processes: a client that saw a write committed (through any process) before it asked gets
 * a read that began after that commit, so sees it. Reusing the running read would not be: it may
 * have begun before that commit.
 */
export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  let next: Promise<T> | null = null;

  const begin = (): Promise<T> => {
    const current = read();
    running = current;
    const finished = () => {
      if (running === current) running = null;
    };
    current.then(finished, finished);
    return current;
  };

  return () => {
    if (next) return next;
    if (!running) return begin();
    // Begun once the running read has ended, whether it failed or not.
    const started = running.then(
      () => undefined,
      () => undefined,
    );
    next = started.then(() => {
      next = null;
      return begin();
    });
    return next;
  };
}
