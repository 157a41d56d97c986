// grove dashboard: live parts (data-poll="/url" data-every="ms") are re-fetched and swapped in when they
// change; buttons with data-confirm ask first. Plain JS, no build step, nothing loaded from elsewhere.
"use strict";

function poll(el) {
  const url = el.dataset.poll;
  const every = parseInt(el.dataset.every || "2000", 10);
  const tick = async () => {
    try {
      const r = await fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } });
      if (r.status === 401) { window.location.href = "/login?next=" + encodeURIComponent(location.pathname); return; }
      if (r.ok) {
        const html = await r.text();
        const holder = document.createElement("div");
        holder.innerHTML = html;
        const fresh = holder.querySelector("main");
        const next = fresh ? fresh.innerHTML : html;
        if (el.dataset.last !== next) { el.innerHTML = next; el.dataset.last = next; }
      }
    } catch (e) {
      // the server restarting is not an error worth a console entry: try again next tick
    }
    setTimeout(tick, every);
  };
  setTimeout(tick, every);
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-poll]").forEach(poll);
  document.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-confirm]");
    if (b && !window.confirm(b.dataset.confirm)) ev.preventDefault();
  });
});
