/**
 * A value made on first use and shared after: an AWS SDK client whose package the function loads with `import()`, so
 * that its code (a chunk of its own in the Lambda build, infra/bundle.ts) is read by the invocations that send
 * something, not by every cold start; or what a container reads or writes once (store/write-shards.ts). A failure is
 * not kept: the next call tries again.
 */
export function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () =>
    (made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    }));
}
