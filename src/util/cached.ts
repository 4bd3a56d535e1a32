/**
 * The value kept for `key` in `cache`, computed by `compute` the first time it is asked for. The
 * extractor keeps what it derives from a prepared page (which never changes after preparation)
 * in WeakMaps keyed on the page or its elements, so that it goes with them.
 */
export function cached<K, V>(cache: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, compute: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = compute();
    cache.set(key, value);
  }
  return value;
}
