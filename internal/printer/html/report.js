// Everything in a function of its own: no global names, which could
// clash with the window's (window.closed is one).
(function () {
"use strict";
// Sorting: a click on a heading sorts its table's rows by that column,
// numbers as numbers; a second click reverses.
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var asc = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("thead th").forEach(function (o) { o.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].textContent.trim(), y = b.cells[col].textContent.trim();
        var nx = Number(x), ny = Number(y);
        var c = (x !== "" && y !== "" && !isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
// Copying a fix: the clipboard when the browser allows it, otherwise the
// text is selected for the user to copy.
document.querySelectorAll("button.copy").forEach(function (btn) {
  btn.addEventListener("click", function () {
    var code = btn.parentNode.querySelector("code.fix");
    var select = function () {
      var r = document.createRange();
      r.selectNodeContents(code);
      var s = window.getSelection();
      s.removeAllRanges();
      s.addRange(r);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(code.textContent).then(function () { btn.textContent = "copied"; }, select);
    } else {
      select();
    }
  });
});
// Printing shows every list, collapsed or not, and restores them after.
var collapsed = [];
window.addEventListener("beforeprint", function () {
  collapsed = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) { return !d.open; });
  collapsed.forEach(function (d) { d.open = true; });
});
window.addEventListener("afterprint", function () {
  collapsed.forEach(function (d) { d.open = false; });
  collapsed = [];
});
})();
