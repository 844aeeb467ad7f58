// The live page: count the time down between polls; poll for changes (see bot/web/live.py).
"use strict";
(() => {
  const body = document.body;
  const every = Math.max(1, Number(body.dataset.every) || 2) * 1000;
  let etag = body.dataset.etag || null;
  let skew = 0; // server clock minus this screen's clock, from the page's data-now
  let due = false; // a step ran out: ask now rather than at the next poll
  let busy = false;
  let askedAt = 0;

  const sync = (at) => {
    if (at) skew = at - Date.now();
  };
  const two = (n) => String(n).padStart(2, "0");
  const clock = (ms) => {
    let s = Math.max(0, Math.ceil(ms / 1000 - 1e-6));
    const h = Math.floor(s / 3600);
    s -= h * 3600;
    const m = Math.floor(s / 60);
    return h ? `${h}:${two(m)}:${two(s - m * 60)}` : `${m}:${two(s - m * 60)}`;
  };
  const tick = () => {
    const now = Date.now() + skew;
    for (const el of document.querySelectorAll("[data-ends]")) {
      const left = Number(el.dataset.ends) - now;
      const text = clock(left);
      if (el.textContent !== text) el.textContent = text;
      if (left <= 0 && el.hasAttribute("data-step")) due = true;
    }
  };
  const poll = async () => {
    if (busy) return;
    busy = true;
    try {
      const headers = etag ? { "If-None-Match": etag } : {};
      const answer = await fetch(body.dataset.poll, { headers, cache: "no-store" });
      sync(Number(answer.headers.get("X-Live-Now"))); // a kept main part has an old data-now
      if (answer.status === 200) {
        etag = answer.headers.get("ETag");
        const page = new DOMParser().parseFromString(await answer.text(), "text/html");
        const fresh = page.querySelector("main");
        if (fresh) document.querySelector("main").replaceWith(document.adoptNode(fresh));
        due = false;
        tick();
      } else if (answer.status === 404) {
        window.location.reload(); // the night or the page is gone: show what the server says
      }
    } catch (error) {
      // The server is out of reach for now: keep counting, ask again at the next poll.
    } finally {
      busy = false;
    }
  };
  sync(Number(document.querySelector("main").dataset.now));
  tick();
  window.setInterval(() => {
    tick();
    if (due && Date.now() - askedAt > 1000) {
      askedAt = Date.now();
      poll();
    }
  }, 250);
  window.setInterval(poll, every);
})();
