/** The page's one stylesheet, served by the gateway itself (the CSP allows 'self' and nothing else). */
export const STYLESHEET_PATH = "/t/assets/page.css";

/**
 * Large type, strong contrast (WCAG AA), logical properties so the same sheet serves both
 * directions. The legend's swatches repeat the markers' colours: the two must change together.
 */
export const STYLESHEET = `
:root{color-scheme:light;--ink:#1b1f23;--muted:#4a5560;--accent:#0b5d3b;--line:#c9d1d9;--bg:#ffffff;--soft:#f1f5f3;--pickup:#d8e7ff;--pickup-edge:#1d4ed8;--destination:#ffe2cc;--destination-edge:#9a3412;--driver:rgba(11,93,59,.25)}
*{box-sizing:border-box}
body{margin:0;font:1rem/1.5 system-ui,"Segoe UI",Tahoma,"Noto Sans Arabic",sans-serif;color:var(--ink);background:var(--bg)}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;justify-content:space-between;align-items:center;padding:.75rem 1rem;border-block-end:1px solid var(--line)}
.brand{margin:0;font-weight:700;color:var(--accent)}
.languages{display:flex;gap:.75rem;list-style:none;margin:0;padding:0}
.languages a{color:var(--accent);font-weight:600}
.languages a[aria-current]{color:var(--ink);text-decoration:none}
main{max-inline-size:40rem;margin-inline:auto;padding:1rem}
h1{font-size:1.6rem;margin-block:.5rem}
h2{font-size:1.1rem;margin-block:1.25rem .5rem}
.eta{font-weight:600;margin-block:.25rem}
.outcome{font-size:1.1rem;margin-block:.25rem}
#reason{margin-block:.25rem}
.map{display:block;inline-size:100%;block-size:auto;border:1px solid var(--line);border-radius:.5rem}
.map .ground{fill:var(--soft)}
.map .route{stroke:var(--muted);stroke-width:1.5;stroke-dasharray:4 4}
.map .pickup{fill:var(--pickup);stroke:var(--pickup-edge)}
.map .destination{fill:var(--destination);stroke:var(--destination-edge)}
.map .driver{fill:var(--driver);stroke:var(--accent);stroke-width:2}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;list-style:none;margin:.5rem 0 0;padding:0;font-size:.95rem}
.legend li{display:flex;align-items:center;gap:.4rem}
.swatch{display:inline-block;inline-size:.9rem;block-size:.9rem;border:2px solid;border-radius:.2rem;flex:none}
.swatch.pickup{background:var(--pickup);border-color:var(--pickup-edge)}
.swatch.destination{background:var(--destination);border-color:var(--destination-edge)}
.swatch.driver{background:var(--driver);border-color:var(--accent);border-radius:50%}
.note{color:var(--muted)}
.timeline{list-style:none;margin:0;padding:0}
.timeline li{padding-block:.4rem;padding-inline-start:1.25rem;border-inline-start:3px solid var(--line)}
.timeline li.done{border-color:var(--accent)}
.timeline li.current{border-color:var(--accent);font-weight:700}
.timeline li.pending{color:var(--muted)}
.timeline time{color:var(--muted);white-space:nowrap}
.refresh{color:var(--muted);font-size:.9rem;margin-block-start:1.5rem}
`;
