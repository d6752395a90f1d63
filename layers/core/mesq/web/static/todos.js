// The todo board: drag and drop between and within columns (SortableJS), each drop sent to
// POST /todos/tasks/{id}/drop (move_todo_task: the new column and the index among its cards).
// A refused drop puts the card back and says why. The keyboard form on every card does the same
// without a mouse; after a drop its Up/Down indices are renumbered. No inline script (CSP).
"use strict";
(function () {
  var board = document.getElementById("board");
  if (!board || typeof Sortable === "undefined") return;
  var status = document.getElementById("board-status");

  function say(text, ok) {
    status.textContent = text;
    status.className = ok ? "status ok" : "status";
    status.hidden = false;
  }

  function renumber(list) {
    var cards = list.querySelectorAll(":scope > .todo-card");
    cards.forEach(function (card, index) {
      var up = card.querySelector(".move-up"), down = card.querySelector(".move-down");
      var column = card.querySelector("select[name=column]");
      if (up) { up.value = String(Math.max(index - 1, 0)); up.disabled = index === 0; }
      if (down) down.value = String(index + 1);
      if (column) column.value = list.dataset.columnId;
    });
  }

  function putBack(event) {
    var from = event.from, item = event.item;
    var reference = from.children[event.oldIndex] || null;
    if (reference === item) reference = item.nextSibling;
    from.insertBefore(item, reference);
    renumber(from);
    renumber(event.to);
  }

  function setRevision(card, revision) {
    card.dataset.revision = String(revision);
    card.querySelectorAll("input[name=revision]").forEach(function (input) { input.value = String(revision); });
  }

  function dropped(event) {
    if (event.from === event.to && event.oldIndex === event.newIndex) return;
    var card = event.item;
    var title = card.querySelector(".title").textContent.trim();
    var body = {
      revision: Number(card.dataset.revision),
      column: event.to.dataset.columnId,
      index: event.newIndex
    };
    card.setAttribute("aria-busy", "true");
    fetch("/todos/tasks/" + encodeURIComponent(card.dataset.taskId) + "/drop", {
      method: "POST",
      credentials: "same-origin",
      referrerPolicy: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": board.dataset.csrf },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().then(function (answer) { return { ok: response.ok, answer: answer }; });
    }).then(function (result) {
      card.removeAttribute("aria-busy");
      if (result.ok && result.answer.ok) {
        setRevision(card, result.answer.task.revision);
        renumber(event.from);
        renumber(event.to);
        say("Moved “" + title + "”.", true);
        return;
      }
      putBack(event);
      var message = result.answer && result.answer.error ? result.answer.error.message : "The move was refused.";
      say(message + " Reload the board to see the latest order.", false);
    }).catch(function () {
      card.removeAttribute("aria-busy");
      putBack(event);
      say("Could not reach MeSQ; the card is back where it was.", false);
    });
  }

  board.querySelectorAll("ol.cards").forEach(function (list) {
    Sortable.create(list, {
      group: "todo-board",
      animation: 120,
      filter: "details, summary, select, button, input",
      preventOnFilter: false,
      ghostClass: "sortable-ghost",
      // Pointer events rather than the browser's native drag and drop: one behaviour for mouse,
      // pen and touch, and the card follows the pointer.
      forceFallback: true,
      fallbackTolerance: 3,
      onEnd: dropped
    });
  });
})();
