/**
 * Bundles' source maps, trimmed to what a stack trace needs. esbuild maps every token; about 95%
 * of a process's mappings point into node_modules. With `--enable-source-maps`, the first stack a
 * process formats (Node formats one for any stream destroyed with an error, printed or not) parses
 * the whole map on the event loop and keeps it in memory for good: ~100 ms and tens of MiB per
 * process, measured on the shipment bundle. Our own code keeps every mapping; a library keeps the
 * first mapping of each of its source lines, so its frames still name the right file and line
 * (only the column is approximate). Written by hand on source-map-js's consumer and generator:
 * esbuild has no option to map some inputs coarser than others.
 */
import { SourceMapConsumer, SourceMapGenerator, type RawSourceMap } from "source-map-js";

const LIBRARY = /(^|\/)node_modules\//;

export function trimLibraryMappings(raw: RawSourceMap): RawSourceMap {
  const consumer = new SourceMapConsumer(raw);
  const generator = new SourceMapGenerator({ file: raw.file, ...(raw.sourceRoot ? { sourceRoot: raw.sourceRoot } : {}) });
  let lastLibraryLine: string | undefined;
  consumer.eachMapping((m) => {
    if (m.source && LIBRARY.test(m.source)) {
      const line = `${m.source}:${m.originalLine}`;
      if (line === lastLibraryLine) return;
      lastLibraryLine = line;
    } else {
      lastLibraryLine = undefined;
    }
    const generated = { line: m.generatedLine, column: m.generatedColumn };
    // A segment of generated code without a source (a bundler's glue) stays one: it ends the previous mapping.
    if (!m.source || m.originalLine == null || m.originalColumn == null) generator.addMapping({ generated });
    else generator.addMapping({ generated, source: m.source, original: { line: m.originalLine, column: m.originalColumn }, ...(m.name ? { name: m.name } : {}) });
  });
  return JSON.parse(generator.toString()) as RawSourceMap;
}
