import { constants, PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import { Gauge, type Registry } from "prom-client";

/**
 * The heap a process keeps: V8's used heap read just after its last major collection. The used
 * heap itself is a saw (it grows with garbage until a collection), so a window shorter than the
 * time between two major collections cannot tell growth from a leak on it; this figure can, and it
 * is what a leak alert or a soak judges. One observer per process, whatever the registries.
 */
let afterMajorGc: number | undefined;
let observer: PerformanceObserver | undefined;

function watchMajorCollections(): void {
  if (observer) return;
  observer = new PerformanceObserver((list) => {
    // Entries arrive just after the collection, before much is allocated again.
    if (list.getEntries().some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) {
      afterMajorGc = v8.getHeapStatistics().used_heap_size;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
}

/** `nodejs_heap_used_after_major_gc_bytes`, absent until the process's first major collection. */
export function registerHeapAfterGc(registry: Registry): void {
  watchMajorCollections();
  new Gauge({
    name: "nodejs_heap_used_after_major_gc_bytes",
    help: "V8's used heap just after the last major (mark-sweep-compact) collection: the heap the process keeps.",
    registers: [registry],
    collect() {
      if (afterMajorGc === undefined) this.reset();
      else this.set(afterMajorGc);
    },
  });
}
