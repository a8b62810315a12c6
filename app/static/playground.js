// The plybits playground: encode a record with every scheme of its game, show the sizes,
// the container, the decoded moves, and the board move by move. Talks only to this service.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  codecs: [], samples: {}, game: null, record: "", replay: null, ply: 0, flip: false,
  encodings: [], selected: null,
};

async function call(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  let data = null;
  try { data = await response.json(); } catch (_) { data = { detail: `${response.status} ${response.statusText}` }; }
  return { ok: response.ok, status: response.status, data };
}

function problemText(problem) {
  // A problem+json body (or a validate/replay error) as one line that names the failing ply.
  if (!problem) return "unknown error";
  const reason = problem.reason || problem.detail || problem.title || "error";
  if (problem.ply === undefined || problem.ply === null) return reason;
  const move = problem.move ? ` (move ${JSON.stringify(problem.move)})` : "";
  return `ply ${problem.ply + 1}${move}: ${reason.replace(/^ply \d+(, move '[^']*')?: /, "")}`;
}

function showError(problem) {
  const box = $("error");
  if (!problem) { box.hidden = true; box.textContent = ""; delete box.dataset.ply; return; }
  box.hidden = false;
  box.textContent = problemText(problem);
  if (problem.ply !== undefined && problem.ply !== null) box.dataset.ply = problem.ply; else delete box.dataset.ply;
}

function gameSchemes(game) { return state.codecs.filter((c) => c.game === game); }

function fillGames() {
  const games = [...new Set(state.codecs.map((c) => c.game))];
  $("game").innerHTML = "";
  for (const game of games) $("game").add(new Option(game, game));
  if (games.length) fillSamples();
}

function fillSamples() {
  const select = $("sample");
  select.length = 1;
  for (const [i, sample] of (state.samples[$("game").value] || []).entries()) select.add(new Option(sample.name, i));
}

function renderUrl(ply) {
  const r = state.replay;
  const params = new URLSearchParams({ game: state.game, position: ply === 0 ? r.start : r.positions[ply - 1] });
  if (ply > 0) params.set("last", r.last[ply - 1]);
  if (state.flip) params.set("flip", "true");
  params.set("size", "460");
  return "/v1/render?" + params.toString();
}

function show(ply) {
  const r = state.replay;
  if (!r) return;
  const total = r.positions.length;
  state.ply = Math.max(0, Math.min(total, ply));
  $("board").src = renderUrl(state.ply);
  $("board").dataset.ply = state.ply;
  const move = state.ply > 0 ? `: ${r.moves[state.ply - 1]}` : " (start)";
  $("ply").textContent = `ply ${state.ply} / ${total}${move}`;
  $("first").disabled = $("back").disabled = state.ply === 0;
  $("last").disabled = $("forward").disabled = state.ply === total;
  for (const [i, li] of [...$("moves").children].entries()) li.classList.toggle("current", i === state.ply - 1);
  const current = $("moves").children[state.ply - 1];
  if (current) {  // keep the current move visible inside the list, without scrolling the page
    const box = $("moves");
    const top = current.offsetTop;  // the list is the offset parent (position: relative)
    if (top < box.scrollTop) box.scrollTop = top;
    else if (top + current.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = top + current.offsetHeight - box.clientHeight;
    }
  }
  $("status").textContent = state.ply === total && r.status ? statusText(r.status) : "";
}

function statusText(status) {
  const parts = [status.status];
  if (status.result) parts.push(status.result);
  if (status.winner) parts.push(`winner ${status.winner}`);
  if (status.ejected) parts.push("ejected " + Object.entries(status.ejected).map(([k, v]) => `${k} ${v}`).join(", "));
  if (status.scores && status.scores.length) parts.push(`scores ${status.scores.join(" / ")}`);
  return parts.join(" · ");
}

function drawChart() {
  const chart = $("chart");
  chart.innerHTML = "";
  const biggest = Math.max(1, new TextEncoder().encode(state.record).length,
    ...state.encodings.filter((e) => e.ok).map((e) => e.data.size_bytes));
  for (const e of state.encodings) {
    const row = document.createElement("div");
    row.className = "bar-row" + (e.ok ? "" : " failed") + (e.scheme === state.selected ? " selected" : "");
    row.dataset.scheme = e.scheme;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = e.scheme;
    const track = document.createElement("div");
    track.className = "track";
    const fill = document.createElement("div");
    fill.className = "fill";
    const label = document.createElement("span");
    label.className = "label";
    if (e.ok) {
      fill.style.width = `${(100 * e.data.size_bytes) / biggest}%`;
      row.dataset.bytes = e.data.size_bytes;
      row.dataset.bitsPerPly = e.data.bits_per_ply;
      label.textContent = `${e.data.size_bytes} bytes · ${e.data.bits_per_ply.toFixed(2)} bits/ply · ${e.data.plies} plies`;
    } else {
      fill.style.width = "0";
      label.textContent = problemText(e.data);
      label.title = label.textContent;
    }
    track.append(fill, label);
    row.append(name, track);
    row.addEventListener("click", () => { if (e.ok) selectScheme(e.scheme); });
    chart.append(row);
  }
  // For scale: the record as pasted, in UTF-8 bytes (tags and all, as the containers carry tags too).
  const text = new TextEncoder().encode(state.record).length;
  const ref = document.createElement("div");
  ref.className = "ref-row";
  ref.innerHTML = '<div class="name">text</div><div class="track"><div class="fill"></div><span class="label"></span></div>';
  ref.querySelector(".fill").style.width = `${Math.min(100, (100 * text) / biggest)}%`;
  const plies = state.replay ? state.replay.positions.length : 0;
  ref.querySelector(".label").textContent =
    `${text} bytes as pasted` + (plies ? ` · ${((8 * text) / plies).toFixed(1)} bits/ply` : "");
  chart.append(ref);
}

function base64urlBytes(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

function moveItem(i, move) {
  // One ply of the move list: its number (from 1) and its text; a click shows the board after it.
  const li = document.createElement("li");
  const number = document.createElement("span");
  number.className = "n";
  number.textContent = `${i + 1}.`;
  const text = document.createElement("span");
  text.className = "mv";
  text.textContent = move;
  li.append(number, text);
  li.addEventListener("click", () => show(i + 1));
  return li;
}

async function selectScheme(scheme) {
  state.selected = scheme;
  drawChart();
  const e = state.encodings.find((x) => x.scheme === scheme);
  $("container-scheme").textContent = `${state.game}/${scheme}, ${e.data.size_bytes} bytes`;
  $("b64").textContent = e.data.data;
  $("hex").textContent = [...base64urlBytes(e.data.data)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const dropped = Object.entries(e.data.dropped || {}).filter(([, v]) => v > 0).map(([k, v]) => `${v} ${k}`);
  $("dropped").textContent = dropped.length ? `not stored (a move list cannot carry them): ${dropped.join(", ")}` : "";
  const decoded = await call("/v1/decode", { data: e.data.data });
  const list = $("moves");
  list.innerHTML = "";
  if (!decoded.ok) { showError(decoded.data); return; }
  $("decoded-count").textContent = `(${decoded.data.plies} plies, from ${scheme})`;
  $("tags").textContent = Object.entries(decoded.data.tags || {}).map(([k, v]) => `${k}: ${v}`).join(" · ");
  for (const [i, move] of decoded.data.moves.entries()) list.append(moveItem(i, move));
  show(state.ply);
}

function listFailedMoves(replay) {
  // With a bad ply, list the good moves and the bad one, marked.
  const list = $("moves");
  list.innerHTML = "";
  $("decoded-count").textContent = "(read up to the error)";
  for (const [i, move] of replay.moves.entries()) list.append(moveItem(i, move));
  const bad = moveItem(replay.moves.length, replay.error.move || "?");
  bad.className = "bad";
  list.append(bad);
}

async function run() {
  const game = $("game").value;
  const record = $("record").value;
  showError(null);
  $("go").disabled = true;
  try {
    const schemes = gameSchemes(game);
    const [replay, ...encoded] = await Promise.all([
      call("/v1/replay", { game, record }),
      ...schemes.map((s) => call("/v1/encode", { game, scheme: s.scheme, record })),
    ]);
    if (!replay.ok) { showError(replay.data); $("results").hidden = true; return; }
    state.game = game;
    state.record = record;
    state.replay = replay.data;
    state.encodings = schemes.map((s, i) => ({ scheme: s.scheme, ok: encoded[i].ok, data: encoded[i].data }));
    $("results").hidden = false;
    for (const id of ["b64", "hex", "container-scheme", "dropped", "tags"]) $(id).textContent = "";
    if (replay.data.error) {
      showError(replay.data.error);
      state.selected = null;
      drawChart();
      listFailedMoves(replay.data);
      show(replay.data.positions.length);
      return;
    }
    const firstGood = state.encodings.find((e) => e.ok);
    if (!firstGood) { showError(state.encodings[0] && state.encodings[0].data); drawChart(); show(0); return; }
    state.ply = 0;
    await selectScheme(firstGood.scheme);
    show(0);
  } finally {
    $("go").disabled = false;
  }
}

function onKey(event) {
  if (!state.replay || ["TEXTAREA", "INPUT", "SELECT"].includes(document.activeElement.tagName)) return;
  const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const step = moves[event.key];
  show(Number.isFinite(step) ? state.ply + step : step < 0 ? 0 : state.replay.positions.length);
}

async function init() {
  const [codecs, samples] = await Promise.all([call("/v1/codecs"), call("/static/samples.json")]);
  state.codecs = codecs.ok ? codecs.data : [];
  state.samples = samples.ok ? samples.data : {};
  fillGames();
  const firstSample = () => {
    const sample = (state.samples[$("game").value] || [])[0];
    $("record").value = sample ? sample.record : "";
  };
  firstSample();
  $("game").addEventListener("change", () => { fillSamples(); firstSample(); });
  $("sample").addEventListener("change", () => {
    const sample = (state.samples[$("game").value] || [])[$("sample").value];
    if (sample) { $("record").value = sample.record; run(); }
  });
  $("go").addEventListener("click", run);
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(state.ply - 1));
  $("forward").addEventListener("click", () => show(state.ply + 1));
  $("last").addEventListener("click", () => show(Infinity));
  $("flip").addEventListener("click", () => { state.flip = !state.flip; show(state.ply); });
  document.addEventListener("keydown", onKey);
  document.body.dataset.ready = "true";
}

init();
