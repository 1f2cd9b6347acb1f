// The settings app's only assets, served from this origin (the CSP allows nothing else): the
// stylesheet (readable at phone width, visible keyboard focus, the usage charts' colours, tables
// that never overflow: the keys, request and ledger tables stack their rows on a phone) and the
// one script, which makes the copy button copy the secret shown
// once and offers the mint form's Advanced scopes only under Advanced. Pages work without the script.
export const SETTINGS_CSS = `
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#fafafa}
header{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;padding:.75rem 1rem;background:#fff;border-bottom:1px solid #ddd}
header ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0}
nav{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;flex:1;justify-content:space-between}
a{color:#0b57d0}
a[aria-current=page]{font-weight:700;text-decoration:none}
.brand{font-weight:700;color:inherit;text-decoration:none}
main{max-width:64rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem}
:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
button,input,select{font:inherit}
button,a.button{padding:.4rem .9rem;border:1px solid #0b57d0;background:#0b57d0;color:#fff;border-radius:4px;cursor:pointer}
a.button{display:inline-block;text-decoration:none}
button.secondary{background:#fff;color:#0b57d0}
button.danger{background:#b3261e;border-color:#b3261e}
fieldset{border:1px solid #ccc;border-radius:4px;margin:0 0 1rem;padding:.5rem 1rem}
label{display:block;margin:.25rem 0}
input[type=text],input[type=number],select{padding:.35rem;border:1px solid #888;border-radius:4px;max-width:100%}
.hint{color:#555;font-size:.9rem;margin:.1rem 0 .5rem}
.notice{padding:.6rem .9rem;border-radius:4px}
.notice.error{background:#fde7e6;border:1px solid #b3261e}
.notice.ok{background:#e6f4ea;border:1px solid #137333}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.secret code{word-break:break-all;background:#fff;border:1px solid #ccc;padding:.4rem;border-radius:4px}
.table-wrap{overflow-x:auto;position:relative}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #ddd;padding:.4rem .5rem;text-align:left;vertical-align:top}
/* A cell's value wraps anywhere (ids, names); a column's heading only between words, kept whole. */
td{overflow-wrap:anywhere}
th{overflow-wrap:break-word}
form.inline{display:inline}
table.keys td,table.requests td{overflow-wrap:break-word}
table.keys td[data-label=Name],table.keys td[data-label=Prefix],table.keys td[data-label=Allowlist]{overflow-wrap:anywhere}
@media (min-width:48.01rem){table.keys td[data-label=Name]{min-width:7rem}}
.wrap,code,strong,.who,label,legend,h1,h2,caption{overflow-wrap:anywhere}
ul.actions{list-style:none;margin:0;padding:0}
@media (max-width:48rem){
table.keys,table.keys tbody,table.keys tr,table.keys td,table.requests,table.requests tbody,table.requests tr,table.requests td,table.ledger,table.ledger tbody,table.ledger tr,table.ledger td{display:block;width:100%}
table.keys thead,table.requests thead,table.ledger thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.keys caption,table.ledger caption{display:block;text-align:left}
table.keys tr,table.requests tr,table.ledger tr{border:1px solid #ddd;margin:0 0 .75rem}
table.keys td,table.requests td,table.ledger td{border:0;border-bottom:1px solid #eee}
table.keys td::before,table.requests td::before,table.ledger td::before{content:attr(data-label);display:block;font-weight:600;font-size:.85rem;color:#555}
}
.who{color:#555}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
section.usage{background:#fff;border:1px solid #ddd;border-radius:4px;padding:.25rem 1rem 1rem;margin:0 0 1rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
svg.chart{display:block;width:100%;height:auto;max-width:40rem;margin:.5rem 0}
svg.chart .grid{stroke:#ddd;stroke-width:1}
svg.chart .axis{font-size:11px;fill:#555}
@media (max-width:30rem){svg.chart .axis{font-size:18px}}
svg.chart .hit{fill:transparent}
svg.chart .bar{fill:#0b57d0}
svg.chart .today .bar{fill:#137333}
svg.chart .day:hover .bar{fill:#073c8f}
details{margin:.5rem 0}
summary{cursor:pointer;color:#0b57d0}
`;

export const SETTINGS_JS = `
// The mint form's Advanced scopes are offered under Advanced only: hidden and disabled (so not
// sent) while the Read preset is chosen, and the two can never disagree.
function offerAdvancedScopes(form) {
  var advanced = form.querySelector('input[name=preset][value=advanced]');
  var scopes = form.querySelector('.advanced-scopes');
  if (!advanced || !scopes) return;
  scopes.disabled = !advanced.checked;
  scopes.hidden = !advanced.checked;
}
document.querySelectorAll('form.mint').forEach(function (form) {
  offerAdvancedScopes(form);
  form.addEventListener('change', function (event) {
    if (event.target.name === 'preset') offerAdvancedScopes(form);
  });
});
document.addEventListener('click', function (event) {
  var button = event.target.closest('[data-copy]');
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    var status = document.getElementById(button.getAttribute('data-copy') + '-status');
    if (status) status.textContent = 'Copied.';
  });
});
`;
