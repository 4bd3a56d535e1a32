/** The web app's stylesheet, served as /forest.css: the pages' Content Security Policy takes styles from the app alone, and no inline style. */
export const STYLESHEET = `body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:0 1rem;color:#222}
header{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:baseline;border-bottom:1px solid #ddd}header a{color:inherit;text-decoration:none}
table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.failing{color:#a00}.muted{color:#666;font-size:.9em}.label{display:inline-block;padding:0 .4rem;margin-right:.2rem;border-radius:.3rem;background:#eef;font-size:.85em}
article img{max-width:100%;height:auto}@media (max-width:40rem){.wide{display:none}}
del{background:#fdd;text-decoration:line-through}ins{background:#dfd;text-decoration:none}mark{background:#ffa}
.side{table-layout:fixed}.side td{width:50%}form{margin:1rem 0}form.inline{display:inline;margin:0}input[type=search]{width:60%}
.capture-frame{width:100%;height:75vh;border:1px solid #ccc}
img.picture{max-width:100%;height:auto}`;
