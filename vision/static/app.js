// mahjong-lens referee page: photo -> tiles overlaid -> corrections -> score, all through the JSON API.
// The page keeps its own model of the hand (tiles with boxes, grouped as melds) so every correction
// is rescored at once through /api/score without reading the photo again.
"use strict";

const SUITS = { m: "characters", p: "dots", s: "bamboo" };
const HONOURS = { "1z": "東", "2z": "南", "3z": "西", "4z": "北", "5z": "白", "6z": "發", "7z": "中" };
const FLOWERS = { "1f": "春", "2f": "夏", "3f": "秋", "4f": "冬", "5f": "梅", "6f": "兰", "7f": "菊", "8f": "竹" };
const PLAYING_CODES = [
  ..."123456789".split("").map((n) => n + "m"),
  ..."123456789".split("").map((n) => n + "p"),
  ..."123456789".split("").map((n) => n + "s"),
  ..."1234567".split("").map((n) => n + "z"),
];
const FLOWER_CODES = Object.keys(FLOWERS);
const WINDS = ["E", "S", "W", "N"];
// Besides the tiles the hand reader flags, outline those read less surely than this: a person
// checking the photo should look at them too.
const LOW_CONFIDENCE = 0.6;
const LIKELY_ALTERNATIVE = 0.05; // the picker marks the box's readings at least this probable
const MIN_LABEL_PX = 11; // smallest tile label on screen, in CSS pixels
const RETRIED_ERRORS = ["busy", "timeout"]; // the server's 429 and 408: a score asked again shortly may pass
const RETRY_MS = 3000;
// A score asked for and not answered in this long is told as not coming: the one shown stays marked old.
const SCORE_TIMEOUT_MS = 30000;

const state = {
  tiles: [],   // {code, box, confidence, alternatives, uncertain}
  groups: [],  // {role: "meld"|"concealed"|"unassigned", tiles: [tile index], concealed: bool}
  winning: null, // tile index of the winning tile
  flowers: new Set(),
  image: null, // {width, height}
  scoreSeq: 0, // only the newest /api/score answer is shown
  upload: null, // AbortController of the /api/photo request in flight: only the last chosen photo is shown
  pickerTile: null,
  ruleOptions: {}, // rule set name -> its options [{name, default, doc, choices}] from /api/rules
  ruleUnits: {}, // rule set name -> the unit of its total (番, 分, 点)
  photoUrl: null, // the object URL the photo shows, released when another replaces it
};

const $ = (id) => document.getElementById(id);

function tileLabel(code) {
  if (HONOURS[code]) return `${code} ${HONOURS[code]}`;
  if (FLOWERS[code]) return `${code} ${FLOWERS[code]}`;
  return code;
}

// Until the rule-set list has loaded, the engine's default applies.
function currentRules() {
  return $("rules").value || "mcr";
}

// The rule set's options the referee changed from their defaults (the API takes the rest as they are).
function currentOptions() {
  const changed = {};
  for (const input of $("option-fields").querySelectorAll("input, select")) {
    const option = (state.ruleOptions[currentRules()] || []).find((o) => o.name === input.name);
    if (!option) continue;
    let value = input.value;
    if (typeof option.default === "boolean") value = input.checked;
    else if (typeof option.default === "number") {
      if (input.value.trim() === "") continue;
      value = Number(input.value);
    }
    if (value !== option.default) changed[option.name] = value;
  }
  return changed;
}

// A number field the browser cannot read (past what it holds, as 1e400, or a lone "-") has the
// value "" of an empty one, which would score at the default without a word: such fields' names.
function unreadableOptions() {
  return [...$("option-fields").querySelectorAll("input[type=number]")]
    .filter((input) => input.validity.badInput)
    .map((input) => input.name);
}

// The fields of the options a refusal names are marked; any other refusal or a score clears them.
function markOptionFields(problem) {
  for (const input of $("option-fields").querySelectorAll("input, select")) {
    if (problem && new RegExp(`\\b${input.name}\\b`).test(problem)) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
}

// One field per option of the chosen rule set, at its default; a change rescores.
function buildOptionFields() {
  const root = $("option-fields");
  root.innerHTML = "";
  for (const option of state.ruleOptions[currentRules()] || []) {
    const field = document.createElement("div");
    field.className = "option";
    const label = document.createElement("label");
    let input;
    if (option.choices && option.choices.length) {
      input = document.createElement("select");
      // An empty choice leaves the value to the rule set (its doc says how it picks one).
      option.choices.forEach((c) => input.append(new Option(c === "" ? "(default)" : String(c), c)));
      input.value = option.default;
      label.append(`${option.name} `, input);
    } else {
      input = document.createElement("input");
      if (typeof option.default === "boolean") {
        input.type = "checkbox";
        input.checked = option.default;
        label.append(input, ` ${option.name}`);
      } else {
        input.type = typeof option.default === "number" ? "number" : "text";
        if (Number.isInteger(option.default)) input.step = "1";
        input.value = option.default;
        label.append(`${option.name} `, input);
      }
    }
    input.name = option.name;
    input.addEventListener("change", () => {
      markEdited();
      rescore();
    });
    const doc = document.createElement("span");
    doc.className = "hint"; // a phone shows no tooltips: what the option switches is written out
    doc.textContent = option.doc;
    field.append(label, doc);
    root.append(field);
  }
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

// The server's JSON answer; an answer that is not JSON (a proxy's error page) is an error that
// says the server answered, so it is not reported as the server being out of reach.
async function apiJson(response) {
  try {
    return await response.json();
  } catch (_) {
    const err = new Error(`the server answered ${response.status} without a readable message`);
    err.answered = true;
    throw err;
  }
}

function networkMessage(err, retry) {
  if (err.answered) return `${err.message[0].toUpperCase()}${err.message.slice(1)}.`;
  if (err.name === "TimeoutError") return `The server took too long to answer; ${retry}.`;
  return `Could not reach the server (is it still running, and this device online?); ${retry}.`;
}

// ---------------------------------------------------------------- photo upload

// A phone's 50-200 MP photo is over the server's limits: such a photo is sent again shrunk to this
// long side, which keeps tiles far larger than the detector reads them.
const SHRUNK_SIDE = 4000;

// `file` drawn upright at SHRUNK_SIDE as a JPEG, or null where this browser cannot decode it
// (HEIC outside Safari): the server's refusal then stands.
async function shrunkPhoto(file) {
  try {
    const bitmap = await createImageBitmap(file); // upright: the EXIF orientation applied
    const scale = Math.min(1, SHRUNK_SIDE / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    const blob = await new Promise((done) => canvas.toBlob(done, "image/jpeg", 0.92));
    return blob && new File([blob], file.name.replace(/\.[^.]*$/, "") + "-shrunk.jpg", { type: "image/jpeg" });
  } catch (_) {
    return null;
  }
}

async function uploadPhoto(file, shrunk = false) {
  if (state.upload) state.upload.abort();
  const upload = new AbortController();
  state.upload = upload;
  showError("");
  $("busy").hidden = false;
  const form = new FormData();
  form.append("image", file);
  form.append("rules", currentRules());
  form.append("context", JSON.stringify(contextFields()));
  form.append("options", JSON.stringify(currentOptions()));
  try {
    const response = await fetch("/api/photo", { method: "POST", body: form, signal: upload.signal });
    const body = await apiJson(response);
    if (upload.signal.aborted) return; // the answer came in just as a newer photo was chosen
    if (response.status === 413 && !shrunk && state.upload === upload) {
      const smaller = await shrunkPhoto(file);
      if (smaller && state.upload === upload) return uploadPhoto(smaller, true);
    }
    if (!response.ok) {
      const message = body && body.error ? body.error.message : `error ${response.status}`;
      clearReading(); // the previous photo's hand and score are not this photo's
      markOptionFields(body?.error?.code === "bad_option" ? message : "");
      showError(body && body.error && SETTINGS_ERRORS.has(body.error.code)
        ? `Check the settings: ${message}. Then choose the photo again.`
        : `Could not read that photo: ${message}`);
      return;
    }
    if (!body.tiles.length) {
      clearReading();
      showError("No tiles found in this photo. Photograph the winning hand from closer, with the tiles in good light.");
      return;
    }
    // An iPhone's HEIC shows only in Safari: the server sends a JPEG preview of such photos.
    if (state.photoUrl) URL.revokeObjectURL(state.photoUrl);
    state.photoUrl = body.image.preview ? null : URL.createObjectURL(file);
    $("photo").src = body.image.preview || state.photoUrl;
    loadReading(body);
  } catch (err) {
    if (upload.signal.aborted) return;
    if (err.answered) {
      clearReading();
      showError(`Could not read that photo: ${err.message}.`);
    } else { // the photo never reached the server: the hand on screen, and its corrections, stay
      showError("Could not reach the server, so the photo just chosen was not read (is the server still " +
        "running, and this device online?). Choose it again.");
    }
  } finally {
    if (state.upload === upload) {
      state.upload = null;
      $("busy").hidden = true;
    }
  }
}

function clearReading() {
  if ($("picker").open) closePicker(); // its tile was the hand's cleared
  state.tiles = [];
  state.groups = [];
  state.winning = null;
  state.flowers = new Set();
  state.image = null;
  state.scoreSeq++; // a score still on its way belongs to the hand cleared
  syncFlowerButtons();
  for (const id of ["photo-section", "hand-section", "score-section"]) $(id).hidden = true;
}

// A tile, meld or the rule set changed: what the photo's reading said of the hand no longer holds.
function markEdited() {
  $("read-confidence").textContent = "";
  $("warnings").classList.add("stale");
}

// Turns the pipeline's answer into the page's model: tiles by index, groups of tile indices.
function loadReading(body) {
  if ($("picker").open) closePicker(); // opened on a tile of the photo this one replaces
  state.image = body.image;
  state.tiles = body.tiles.map((t) => ({
    code: t.code,
    detected: t.detected || t.code,
    box: t.box,
    confidence: t.confidence,
    alternatives: t.alternatives || [],
    uncertain: Boolean(t.uncertain) || t.confidence < LOW_CONFIDENCE,
  }));
  state.groups = [];
  state.winning = null;
  state.flowers = new Set();
  const placed = new Set();
  for (const g of body.groups || []) {
    const indices = (g.tiles || []).filter((i) => Number.isInteger(i) && i >= 0 && i < state.tiles.length);
    indices.forEach((i) => placed.add(i));
    const kind = String(g.kind || "");
    if (kind === "flowers") {
      indices.forEach((i) => state.flowers.add(state.tiles[i].code));
      continue;
    }
    if (kind === "winning") {
      state.winning = indices[0] ?? null;
      concealedGroup().tiles.push(...indices);
      continue;
    }
    if (kind === "concealed") {
      concealedGroup().tiles.push(...indices);
      continue;
    }
    const stacked = Boolean(g.stacked) && indices.length === 3;
    state.groups.push({ role: "meld", tiles: indices, concealed: Boolean(g.concealed), stacked });
  }
  const leftovers = state.tiles.map((_, i) => i).filter((i) => !placed.has(i));
  if (leftovers.length) state.groups.push({ role: "unassigned", tiles: leftovers, concealed: true });
  syncFlowerButtons();
  const notes = (body.warnings || []).map(warningText);
  if (body.error) notes.unshift(warningText(body.error.message));
  $("warnings").textContent = notes.join(" · ");
  $("warnings").classList.remove("stale");
  // How sure the photo's reading is; it says nothing of the hand once a tile has been corrected.
  const won = body.score && body.score.ok && body.score.winning;
  $("read-confidence").textContent = won
    ? `As read from the photo: the score is right with probability ${percent(body.score_confidence)}, ` +
      `every tile with ${percent(body.confidence)}.`
    : "";
  $("photo-section").hidden = false;
  $("hand-section").hidden = false;
  render();
  rescore();
}

function percent(p) {
  return `${Math.round(100 * (p || 0))}%`;
}

// The API's codes for a fault of the page's settings (win facts, rule-set options), not the photo's.
const SETTINGS_ERRORS = new Set(["contradictory_flags", "bad_context", "bad_wind", "bad_option", "unknown_rules"]);

// The pipeline's warnings and errors speak to `mjlens photo` users, in its options; here each is
// done on the page: a tile is corrected or marked as the winning one by tapping it, a meld of
// three is made a stacked kong with its button, a kong exposed with its own.
const PAGE_WORDS = [
  [/give the right one with --winning-tile/, () => `tap the right tile and choose "${$("picker-winning").textContent}"`],
  [/name it: --winning-tile \S+/, () => `tap it and choose "${$("picker-winning").textContent}"`],
  [/name it with --winning-tile \(e\.g\. 5p\)/, () => "photograph it with the hand"],
  [/name each with --kong CODE \(e\.g\. --kong 5p\)/, () => "tap a face-down tile of each to give its face"],
  [/ \(--annotate marks them\)/, () => " (marked ? on the photo)"],
  [/give what you know \(--winning-tile, --kong, --flowers\)/, () => "tap a tile to correct it"],
  [/name the winner's flowers \(--flowers\)/, () => "tap the flower to name it"],
  [/give --kong \S+:/g, () => 'press "a fourth under it" on that meld:'],
  [/if it was claimed \(exposed\), it scores \d+ instead of \d+/, (said) => `${said}: press "make exposed" on it`],
];

function warningText(w) {
  const text = typeof w === "string" ? w : w.message || w.code || JSON.stringify(w);
  return PAGE_WORDS.reduce((t, [pattern, words]) => t.replace(pattern, words), text);
}

// The group of a role, made when first needed: the concealed hand is listed first, the tiles
// left out of the hand last.
function roleGroup(role) {
  let g = state.groups.find((x) => x.role === role);
  if (!g) {
    g = { role, tiles: [], concealed: true };
    if (role === "concealed") state.groups.unshift(g);
    else state.groups.push(g);
  }
  return g;
}

const concealedGroup = () => roleGroup("concealed");
const unassignedGroup = () => roleGroup("unassigned");

// ---------------------------------------------------------------- the hand the page shows

// A group's kind as its tiles make it, or null when they make no set (a misread or moved tile).
function meldKind(codes) {
  const faces = codes.filter((c) => c !== "back");
  if (!faces.length) return null; // all face down: which tile it is must be given
  if (codes.length === 4) return faces.every((c) => c === faces[0]) ? "kong" : null;
  if (codes.length !== 3 || faces.length !== 3) return null;
  if (faces.every((c) => c === faces[0])) return "pung";
  const ranks = faces.map((c) => Number(c[0])).sort();
  const oneSuit = faces.every((c) => c[1] === faces[0][1]) && faces[0][1] in SUITS;
  return oneSuit && ranks[1] === ranks[0] + 1 && ranks[2] === ranks[1] + 1 ? "chow" : null;
}

// A meld's codes; a stacked kong shows three tiles, its fourth lies under the middle one.
function groupCodes(g) {
  const codes = g.tiles.map((i) => state.tiles[i].code);
  return g.stacked ? [...codes.slice(0, 2), ...codes.slice(1)] : codes;
}

function sortCodes(codes) {
  const order = (c) => ("mpszf".indexOf(c[1]) * 10) + Number(c[0]);
  return [...codes].sort((a, b) => order(a) - order(b));
}

function currentHand() {
  const concealed = [];
  const melds = [];
  for (const g of state.groups) {
    const codes = groupCodes(g);
    if (g.role === "concealed") {
      g.tiles.filter((i) => i !== state.winning).forEach((i) => concealed.push(state.tiles[i].code));
    } else if (g.role === "meld") {
      const kind = meldKind(codes) || (codes.length === 4 ? "kong" : "chow"); // rescore() stops at no set
      if (g.concealed && kind !== "kong") {
        concealed.push(...codes); // a concealed chow or pung is simply part of the concealed hand
        continue;
      }
      // A concealed kong may show two faces down: score the face-up code for all four.
      const face = codes.find((c) => c !== "back") || "back";
      const tiles = kind === "kong" ? codes.map((c) => (c === "back" ? face : c)) : sortCodes(codes);
      melds.push({ kind, tiles, concealed: g.concealed });
    }
  }
  const hand = {
    concealed: sortCodes(concealed),
    melds,
    winning_tile: state.winning === null ? null : state.tiles[state.winning].code,
    flowers: FLOWER_CODES.filter((c) => state.flowers.has(c)),
    ...contextFields(),
  };
  return hand;
}

function contextFields() {
  const fields = {
    self_drawn: $("self_drawn").checked,
    last_tile: $("last_tile").checked,
    kong_replacement: $("kong_replacement").checked,
    robbing_kong: $("robbing_kong").checked,
    seat_wind: $("seat_wind").value,
    round_wind: $("round_wind").value,
    dealer: $("dealer").value,
  };
  // No key means the seat before the winner's; the API refuses a discarder on a self-drawn win.
  const discarder = $("discarder");
  if (!discarder.disabled && discarder.value) fields.discarder = discarder.value;
  return fields;
}

// Who pays for a discard: the chosen seat, else the seat before the winner's (as the API reckons it).
function discardFrom(hand) {
  return hand.discarder || WINDS[(WINDS.indexOf(hand.seat_wind) + 3) % 4];
}

// A score the server was not reached for is asked again by itself, sooner first: a referee must
// not have to change the hand and change it back once the Wi-Fi or the server is back.
async function rescore(attempt = 0) {
  if (!state.tiles.length) return;
  const seq = ++state.scoreSeq;
  const hand = currentHand();
  $("score-section").hidden = false;
  if (hand.winning_tile === null) {
    showScore({ ok: false, error: { code: "no_winning_tile", message: "Tap a tile and mark it as the winning tile." } });
    return;
  }
  const unset = state.groups.find((g) => g.role === "meld" && !meldKind(groupCodes(g)));
  if (unset) {
    const codes = groupCodes(unset).join(" ");
    showScore({ ok: false, error: { code: "bad_meld", message: `${codes} is not a set: correct its tiles.` } });
    return;
  }
  const unreadable = unreadableOptions();
  if (unreadable.length) {
    const message = `${unreadable.join(" and ")}: not a number, or too large a one: correct it.`;
    showScore({ ok: false, error: { code: "bad_option", message } });
    return;
  }
  // Until the answer comes, the score shown is the hand's before the change.
  $("score-section").classList.add("stale");
  $("score-section").setAttribute("aria-busy", "true");
  try {
    const query = `rules=${encodeURIComponent(currentRules())}&options=${encodeURIComponent(JSON.stringify(currentOptions()))}`;
    const response = await fetch(`/api/score?${query}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(hand),
      signal: AbortSignal.timeout(SCORE_TIMEOUT_MS),
    });
    const body = await apiJson(response);
    if (seq !== state.scoreSeq) return;
    showScore(body, hand);
    // A busy or slow server: score again by itself, unless a newer change has asked already.
    if (!body.ok && RETRIED_ERRORS.includes(body.error?.code)) {
      setTimeout(() => { if (seq === state.scoreSeq) rescore(); }, RETRY_MS);
    }
  } catch (err) {
    if (seq !== state.scoreSeq) return;
    const wait = Math.min(RETRY_MS * 2 ** attempt, SCORE_TIMEOUT_MS);
    const message = networkMessage(err, `trying again in ${Math.round(wait / 1000)} s`);
    showScore({ ok: false, error: { code: "network", message } });
    if (!err.answered) setTimeout(() => { if (seq === state.scoreSeq) rescore(attempt + 1); }, wait);
  }
}

// ---------------------------------------------------------------- rendering

function render() {
  renderOverlay();
  renderGroups();
}

// Lines and labels are drawn in photo units, sized to the photo.
function photoScale() {
  return Math.max(state.image.width, state.image.height) / 800;
}

function renderOverlay() {
  const svg = $("overlay");
  svg.innerHTML = "";
  if (!state.image) return;
  svg.setAttribute("viewBox", `0 0 ${state.image.width} ${state.image.height}`);
  state.tiles.forEach((t, i) => {
    const [x1, y1, x2, y2] = t.box;
    const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
    g.classList.add("tile-box");
    if (t.uncertain) g.classList.add("uncertain");
    if (i === state.winning) g.classList.add("winning");
    g.dataset.tile = i;
    const rect = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    rect.setAttribute("x", x1);
    rect.setAttribute("y", y1);
    rect.setAttribute("width", x2 - x1);
    rect.setAttribute("height", y2 - y1);
    rect.setAttribute("stroke-width", 2.5 * photoScale());
    const label = document.createElementNS("http://www.w3.org/2000/svg", "text");
    label.setAttribute("x", (x1 + x2) / 2); // centred: tiles side by side keep their labels apart
    label.setAttribute("y", y1);
    label.setAttribute("dy", "-0.25em");
    label.setAttribute("text-anchor", "middle");
    label.textContent = t.code + (t.uncertain ? "?" : "");
    const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = `${tileLabel(t.code)} (${Math.round(t.confidence * 100)}%)`;
    g.append(rect, label, title);
    g.addEventListener("click", () => openPicker(i));
    svg.append(g);
  });
  sizeLabels();
}

// Labels are never smaller than MIN_LABEL_PX on screen: a phone shows the photo small.
function sizeLabels() {
  const shown = $("overlay").getBoundingClientRect().width;
  if (!state.image || !shown) return;
  const photoUnitsPerPx = state.image.width / shown;
  const size = Math.max(16 * photoScale(), MIN_LABEL_PX * photoUnitsPerPx);
  $("overlay").setAttribute("font-size", size);
}

function chip(i) {
  const t = state.tiles[i];
  const b = document.createElement("button");
  b.type = "button";
  b.className = "chip";
  if (t.uncertain) b.classList.add("uncertain");
  if (i === state.winning) b.classList.add("winning");
  b.dataset.tile = i;
  b.textContent = tileLabel(t.code);
  b.title = t.uncertain ? "uncertain: tap to check" : "tap to correct";
  if (isFlowerTile(i) && !state.flowers.has(t.code)) { // its flower button turned off: not scored
    b.classList.add("uncounted");
    b.title = "not counted: its flower button is off";
  }
  b.addEventListener("click", () => openPicker(i));
  return b;
}

function renderGroups() {
  const root = $("groups");
  root.innerHTML = "";
  // The photo's flower tiles, as chips too: the keyboard reaches them, and a correction refocuses.
  const flowerTiles = state.tiles.map((_, i) => i).filter(isFlowerTile);
  const groups = flowerTiles.length ? [...state.groups, { role: "flowers", tiles: flowerTiles }] : state.groups;
  for (const g of groups) {
    if (!g.tiles.length) continue;
    const row = document.createElement("div");
    row.className = `group ${g.role}`;
    const name = document.createElement("span");
    name.className = "group-name";
    if (g.role === "meld") {
      const kind = meldKind(groupCodes(g)) || "not a set";
      name.textContent = `${kind}${g.stacked ? " (stacked)" : ""} · ${g.concealed ? "concealed" : "exposed"}`;
    } else {
      name.textContent = { concealed: "concealed hand", flowers: "flowers", unassigned: "unassigned (not scored)" }[g.role];
    }
    row.append(name);
    const chips = document.createElement("span");
    chips.className = "chips";
    g.tiles.forEach((i) => chips.append(chip(i)));
    row.append(chips);
    if (g.role === "meld") {
      row.append(groupToggle(g, "concealed", g.concealed ? "make exposed" : "make concealed"));
      // Three tiles of a kind may be a kong with its fourth tile stacked on the middle one, which a
      // photo taken from above cannot show.
      if (g.stacked || meldKind(groupCodes(g)) === "pung") {
        const stack = groupToggle(g, "stacked", g.stacked ? "not stacked" : "a fourth under it");
        stack.classList.add("stack");
        stack.title = "a kong laid as three tiles with the fourth on the middle one";
        row.append(stack);
      }
    }
    root.append(row);
  }
}

// A button that turns the group's boolean `field` over and rescores.
function groupToggle(g, field, text) {
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "toggle";
  toggle.textContent = text;
  toggle.addEventListener("click", () => {
    g[field] = !g[field];
    markEdited();
    render();
    rescore();
  });
  return toggle;
}

function showScore(result, hand) {
  $("score-section").classList.remove("stale");
  $("score-section").removeAttribute("aria-busy");
  const tbody = $("fans").querySelector("tbody");
  tbody.innerHTML = "";
  $("payments").textContent = "";
  $("score-summary").textContent = "";
  markOptionFields(!result.ok && result.error?.code === "bad_option" ? result.error.message : "");
  if (!result.ok) {
    $("total").textContent = "";
    $("score-status").textContent = result.error ? result.error.message : "This hand cannot be scored.";
    $("score-status").className = "status bad";
    return;
  }
  $("total").textContent = `${result.total} ${state.ruleUnits[result.rules] || ""}`.trim();
  const status = result.why || "";
  $("total").classList.toggle("bad", Boolean(status)); // a total that does not pay is not shown as a win
  $("score-status").textContent = status || "Winning hand.";
  $("score-status").className = status ? "status bad" : "status good";
  $("score-summary").textContent = result.summary || "";
  for (const fan of result.fans || []) {
    const tr = document.createElement("tr");
    tr.className = "fan";
    tr.tabIndex = 0; // the tiles behind a fan light up from the keyboard too
    const count = fan.count > 1 ? ` ×${fan.count}` : "";
    tr.innerHTML = "<td class='zh'></td><td class='en'></td><td class='num'></td>";
    tr.children[0].textContent = fan.zh;
    tr.children[1].textContent = fan.en + count + (fan.provisional ? " *" : "");
    if (fan.provisional) tr.title = "provisional: no primary source defines this fan; scored by our own definition";
    tr.children[2].textContent = fan.points * (fan.count || 1);
    tr.addEventListener("mouseenter", () => highlight(fanTiles(fan)));
    tr.addEventListener("mouseleave", () => highlight([]));
    tr.addEventListener("click", () => highlight(fanTiles(fan)));
    tr.addEventListener("focus", () => highlight(fanTiles(fan)));
    tr.addEventListener("blur", () => highlight([]));
    tbody.append(tr);
  }
  if (result.fans && result.fans.some((f) => f.provisional)) {
    const note = "* provisional: no primary source defines this fan; scored by our own definition";
    if ($("score-summary").textContent) $("score-summary").append(document.createElement("br"));
    $("score-summary").append(note);
  }
  if (result.payments && result.reason !== "not_winning") {
    $("payments").textContent = "Payments: " +
      WINDS.map((w) => `${w} ${result.payments[w] > 0 ? "+" : ""}${result.payments[w]}`).join("  ");
    // They hang on who discarded, which the photo cannot show: name the seat they assume
    // (only where someone pays, as `mjlens photo` does).
    if (WINDS.some((w) => result.payments[w])) {
      const from = document.createElement("span");
      from.className = "from";
      from.textContent = hand.self_drawn ? "(self-drawn)" : `(discard from ${discardFrom(hand)})`;
      $("payments").append(" ", from);
    }
  }
}

// The fan's provenance lists, per occurrence, the tile codes behind it. Each occurrence is matched
// to on-screen tiles: a meld with exactly those codes, else tiles by code (winning tile first,
// then the concealed hand, then melds), so a pung's three 5p light up and not a fourth 5p elsewhere.
function fanTiles(fan) {
  const occurrences = fan.groups && fan.groups.length ? fan.groups : [fan.tiles || []];
  const melds = state.groups.filter((g) => g.role === "meld");
  const concealed = state.groups.filter((g) => g.role === "concealed").flatMap((g) => g.tiles);
  const rank = (i) => (i === state.winning ? 0 : concealed.includes(i) ? 1 : 2);
  const flowerTiles = state.tiles.map((_, i) => i)
    .filter((i) => isFlowerTile(i) && state.flowers.has(state.tiles[i].code));
  const placed = [...state.groups.filter((g) => g.role !== "unassigned").flatMap((g) => g.tiles)
    .sort((a, b) => rank(a) - rank(b)), ...flowerTiles];
  const found = new Set();
  for (const occurrence of occurrences) {
    const wanted = sortCodes(occurrence).join(",");
    const meld = melds.find((g) => sortCodes(groupCodes(g)).join(",") === wanted);
    if (meld) {
      meld.tiles.forEach((i) => found.add(i));
      continue;
    }
    const used = new Set();
    for (const code of occurrence) {
      const i = placed.find((k) => !used.has(k) && state.tiles[k].code === code);
      if (i !== undefined) {
        used.add(i);
        found.add(i);
      }
    }
  }
  return [...found];
}

function highlight(indices) {
  const on = new Set(indices.map(String));
  document.querySelectorAll("[data-tile]").forEach((el) => el.classList.toggle("highlight", on.has(el.dataset.tile)));
}

// ---------------------------------------------------------------- tile picker

function openPicker(i) {
  state.pickerTile = i;
  const t = state.tiles[i];
  $("picker-current").textContent = t.code === t.detected ? `(read as ${tileLabel(t.code)})`
    : `(read as ${tileLabel(t.detected)}, now ${tileLabel(t.code)})`;
  const likely = new Set((t.alternatives || []).filter((a) => a[1] >= LIKELY_ALTERNATIVE).map((a) => a[0]));
  document.querySelectorAll("#picker-tiles button").forEach((b) => {
    b.classList.toggle("current", b.dataset.code === t.code);
    b.classList.toggle("likely", likely.has(b.dataset.code));
  });
  // A face-down tile is scored only in a concealed kong, as the kong's face-up tile.
  const inKong = state.groups.some((g) => g.role === "meld" && (g.tiles.length === 4 || g.stacked) && g.tiles.includes(i));
  $("picker-tiles").querySelector("[data-code='back']").hidden = !inKong;
  // A tile of a neighbour or a discard, read as the hand's, leaves it; one left out joins it.
  const unassigned = state.groups.some((g) => g.role === "unassigned" && g.tiles.includes(i));
  $("picker-leave").hidden = unassigned;
  $("picker-join").hidden = !unassigned;
  $("picker").showModal();
  // On the code it has: Enter, pressed again, leaves the tile as it is.
  $("picker-tiles").querySelector(`[data-code='${t.code}']`)?.focus();
}

// Flower tiles belong to no group: the hand's flowers are state.flowers, by code.
function isFlowerTile(i) {
  return !state.groups.some((g) => g.tiles.includes(i));
}

// A meld that loses a tile is no meld: its other tiles go back to the concealed hand.
function takeOutOfGroups(i) {
  const broken = state.groups.filter((g) => g.role === "meld" && g.tiles.includes(i));
  for (const g of state.groups) g.tiles = g.tiles.filter((k) => k !== i);
  state.groups = state.groups.filter((g) => !broken.includes(g));
  broken.forEach((g) => concealedGroup().tiles.push(...g.tiles));
}

// A flower code stays among the hand's flowers while some flower tile of the photo still shows it.
function releaseFlower(code, tile) {
  const shown = state.tiles.some((t, k) => k !== tile && isFlowerTile(k) && t.code === code);
  if (!shown) state.flowers.delete(code);
}

// A tile corrected to a flower leaves the hand for the flowers; a flower corrected to a playing
// tile joins the concealed hand.
function pickCode(code) {
  const i = closePicker();
  if (i === null) return;
  const tile = state.tiles[i];
  const toFlower = code in FLOWERS;
  if (isFlowerTile(i)) {
    releaseFlower(tile.code, i);
    if (!toFlower) concealedGroup().tiles.push(i);
  } else if (toFlower) {
    takeOutOfGroups(i);
    if (state.winning === i) state.winning = null;
  }
  if (toFlower) state.flowers.add(code);
  tile.code = code;
  tile.uncertain = false; // a person has checked it
  markEdited();
  syncFlowerButtons();
  render();
  refocus(i);
  rescore();
}

// The tile the picker was opened for (null if none); the picker is closed.
function closePicker() {
  const i = state.pickerTile;
  state.pickerTile = null;
  $("picker").close();
  return i;
}

// After the hand is drawn anew, the keyboard stays on the tile just changed.
function refocus(i) {
  const chip = document.querySelector(`#groups .chip[data-tile='${i}']`);
  if (chip) chip.focus();
}

function buildPicker() {
  const root = $("picker-tiles");
  const rows = [
    PLAYING_CODES.filter((c) => c[1] === "m"),
    PLAYING_CODES.filter((c) => c[1] === "p"),
    PLAYING_CODES.filter((c) => c[1] === "s"),
    PLAYING_CODES.filter((c) => c[1] === "z"),
    [...FLOWER_CODES, "back"],
  ];
  for (const row of rows) {
    const div = document.createElement("div");
    div.className = "picker-row";
    for (const code of row) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.code = code;
      b.textContent = code === "back" ? "back" : tileLabel(code);
      b.title = code === "back" ? "face down (in a concealed kong)"
        : SUITS[code[1]] ? `${code[0]} ${SUITS[code[1]]}` : tileLabel(code);
      b.addEventListener("click", () => pickCode(code));
      div.append(b);
    }
    root.append(div);
  }
  $("picker-winning").addEventListener("click", () => {
    const i = closePicker();
    if (i === null) return;
    // The winning tile belongs to the concealed hand; take it out of the flowers or of its meld.
    if (isFlowerTile(i)) releaseFlower(state.tiles[i].code, i);
    takeOutOfGroups(i);
    concealedGroup().tiles.push(i);
    state.winning = i;
    markEdited();
    syncFlowerButtons();
    render();
    refocus(i);
    rescore();
  });
  $("picker").addEventListener("close", () => {
    state.pickerTile = null;
  });
  // A tap on the backdrop, outside the dialog's box, closes it as Escape does (a phone has no Escape).
  $("picker").addEventListener("click", (event) => {
    if (event.target === $("picker")) closePicker();
  });
  $("picker-leave").addEventListener("click", () => moveTile((i) => unassignedGroup().tiles.push(i)));
  $("picker-join").addEventListener("click", () => moveTile((i) => {
    if (state.tiles[i].code in FLOWERS) state.flowers.add(state.tiles[i].code); // a flower tile joins the flowers
    else concealedGroup().tiles.push(i);
  }));
}

// The picker's tile out of wherever it is (its meld broken, its flower released), then put by `place`.
function moveTile(place) {
  const i = closePicker();
  if (i === null) return;
  if (isFlowerTile(i)) releaseFlower(state.tiles[i].code, i);
  takeOutOfGroups(i);
  if (state.winning === i) state.winning = null;
  place(i);
  markEdited();
  syncFlowerButtons();
  render();
  refocus(i);
  rescore();
}

// ---------------------------------------------------------------- context controls

function syncFlowerButtons() {
  document.querySelectorAll("#flower-buttons button").forEach((b) => {
    b.setAttribute("aria-pressed", String(state.flowers.has(b.dataset.code)));
  });
}

// A self-drawn win has no discarder and nobody wins on their own discard: the API refuses both,
// so the select never offers them (a choice the seat change rules out falls back to the default).
function syncDiscarder() {
  const select = $("discarder");
  const seat = $("seat_wind").value;
  select.disabled = $("self_drawn").checked;
  for (const option of select.options) option.disabled = option.value === seat;
  if (select.value === seat) select.value = "";
}

function buildContext() {
  for (const select of document.querySelectorAll("select.wind")) {
    for (const w of WINDS) select.append(new Option(w, w));
  }
  const root = $("flower-buttons");
  for (const code of FLOWER_CODES) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.code = code;
    b.textContent = tileLabel(code);
    b.addEventListener("click", () => {
      if (state.flowers.has(code)) state.flowers.delete(code);
      else state.flowers.add(code);
      markEdited();
      syncFlowerButtons();
      renderGroups(); // a flower tile of the photo shows whether it counts
      rescore();
    });
    root.append(b);
  }
  syncFlowerButtons();
  syncDiscarder();
  // Back or Forward may put the controls' values back without their change events.
  window.addEventListener("pageshow", syncDiscarder);
  document.querySelectorAll("#context-section > .context input, #context-section > .context select").forEach((el) => {
    el.addEventListener("change", () => {
      syncDiscarder();
      rescore();
    });
  });
  $("rules").addEventListener("change", () => {
    buildOptionFields(); // another rule set, its own options at their defaults
    markEdited();
    rescore();
  });
}

async function loadRules() {
  const select = $("rules");
  try {
    const body = await apiJson(await fetch("/api/rules"));
    for (const r of body.rules) {
      select.append(new Option(r.title, r.name));
      state.ruleOptions[r.name] = r.options;
      state.ruleUnits[r.name] = r.unit;
    }
  } catch (_) {
    select.append(new Option("mcr", "mcr"));
    state.ruleUnits.mcr = "番";
  }
  buildOptionFields();
}

document.addEventListener("DOMContentLoaded", () => {
  buildPicker();
  buildContext();
  loadRules();
  new ResizeObserver(sizeLabels).observe($("overlay"));
  $("photo-input").addEventListener("change", (e) => {
    const file = e.target.files[0];
    if (file) uploadPhoto(file);
    e.target.value = ""; // the same photo can be chosen again
  });
});
