// The page scripts' strings in the page's language: base.html's JSON data block
// (#mesq-words, from web/kit/script_words.py) maps each English source to its translation.
// mesqSay("Attached %(name)s.", {name: "a.txt"}); mesqSayPlural("%(num)d book", "%(num)d books", n).
// Anything not in the table is shown as written (English).
"use strict";
(function () {
  var table = null;
  function words() {
    if (table === null) {
      var block = document.getElementById("mesq-words");
      try { table = block ? JSON.parse(block.textContent) : {}; } catch (e) { table = {}; }
    }
    return table;
  }
  function fill(text, values) {
    return text.replace(/%\((\w+)\)[sd]/g, function (whole, name) {
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }
  window.mesqSay = function (english, values) {
    var text = words()[english];
    return fill(typeof text === "string" ? text : english, values);
  };
  window.mesqSayPlural = function (one, other, n, values) {
    var forms = words()[one];
    var text = Array.isArray(forms) ? forms[n === 1 ? 0 : 1] : (n === 1 ? one : other);
    var all = { num: n };
    for (var key in values || {}) all[key] = values[key];
    return fill(text, all);
  };
})();
