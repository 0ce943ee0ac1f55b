// turnproc: the order form's live check and the zoomable maps. No build step.
"use strict";

(function orderForm() {
  const form = document.getElementById("order-form");
  if (!form) return;
  const sheet = document.getElementById("sheet");
  const panel = document.getElementById("check");
  let timer = null;
  let asked = 0;

  async function check() {
    const ticket = ++asked;
    const body = new URLSearchParams();
    body.set("sheet", sheet.value);
    body.set("form_id", form.elements.form_id.value);
    body.set("csrf", form.elements.csrf.value);
    try {
      const answer = await fetch(form.dataset.check, {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
      const html = await answer.text();
      // The server escaped every text in this fragment (Jinja2 autoescape).
      if (ticket === asked) panel.innerHTML = html;
    } catch (error) {
      if (ticket === asked) panel.textContent = "The check could not be reached; Submit still works.";
    }
  }

  sheet.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(check, 350);
  });
  if (!panel.querySelector("[data-verdict]")) check();
})();

(function maps() {
  document.querySelectorAll("figure[data-zoomable]").forEach(function (figure) {
    const view = figure.querySelector(".map-view");
    const img = view.querySelector("img");
    let scale = 1, x = 0, y = 0, drag = null;

    function show() {
      const width = view.clientWidth, height = view.clientHeight;
      x = Math.min(0, Math.max(x, width - width * scale));
      y = Math.min(0, Math.max(y, height - height * scale));
      img.style.transform = "translate(" + x + "px," + y + "px) scale(" + scale + ")";
    }
    function zoom(factor, cx, cy) {
      const next = Math.min(8, Math.max(1, scale * factor));
      x = cx - (cx - x) * (next / scale);
      y = cy - (cy - y) * (next / scale);
      scale = next;
      show();
    }
    figure.querySelectorAll("button[data-zoom]").forEach(function (button) {
      button.addEventListener("click", function () {
        const cx = view.clientWidth / 2, cy = view.clientHeight / 2;
        if (button.dataset.zoom === "in") zoom(1.5, cx, cy);
        else if (button.dataset.zoom === "out") zoom(1 / 1.5, cx, cy);
        else { scale = 1; x = 0; y = 0; show(); }
      });
    });
    view.addEventListener("wheel", function (event) {
      event.preventDefault();
      const box = view.getBoundingClientRect();
      zoom(event.deltaY < 0 ? 1.25 : 0.8, event.clientX - box.left, event.clientY - box.top);
    }, { passive: false });
    view.addEventListener("pointerdown", function (event) {
      drag = { x: event.clientX - x, y: event.clientY - y };
      view.setPointerCapture(event.pointerId);
    });
    view.addEventListener("pointermove", function (event) {
      if (!drag) return;
      x = event.clientX - drag.x;
      y = event.clientY - drag.y;
      show();
    });
    view.addEventListener("pointerup", function () { drag = null; });
  });
})();

(function tileLays() {
  // An 18xx move form: pick a hex, then see its tiles and their rotations.
  const pick = document.getElementById("lay-hex");
  if (!pick) return;
  const form = pick.form;
  const hexes = form.querySelectorAll(".lay-hex");
  const choice = document.getElementById("choice");
  const picks = form.querySelectorAll("svg.lay-map polygon.pick");
  function show() {
    hexes.forEach(function (div) { div.hidden = div.dataset.hex !== pick.value; });
    picks.forEach(function (p) { p.classList.toggle("picked", p.dataset.hex === pick.value); });
  }
  picks.forEach(function (polygon) {
    polygon.addEventListener("click", function () {
      pick.value = polygon.dataset.hex;
      pick.dispatchEvent(new Event("change"));
    });
  });
  pick.addEventListener("change", function () {
    form.querySelectorAll("input[name=lay]:checked").forEach(function (r) { r.checked = false; });
    show();
  });
  form.querySelectorAll("input[name=lay]").forEach(function (radio) {
    radio.addEventListener("change", function () { if (choice) choice.value = ""; });
  });
  if (choice) choice.addEventListener("change", function () {
    if (choice.value) form.querySelectorAll("input[name=lay]:checked").forEach(function (r) { r.checked = false; });
  });
  show();
})();
