// The todo board: drag and drop between and within columns (SortableJS), each drop sent to
// POST /todos/tasks/{id}/drop (move_todo_task: the new column and the index among its cards).
// A refused drop puts the card back and says why. The keyboard "Move" form on every card works
// without script (a post and a reload); with it, the same move is sent here and the card moves
// in place, keeping focus and whatever pages of cards are loaded. Columns are dragged by their
// handle (POST /todos/columns/{id}/drop). No inline script (CSP).
"use strict";
// The task page: choosing "Custom rule" opens "Advanced", where the rule is typed.
(function () {
  var repeat = document.getElementById("repeat");
  var advanced = document.querySelector("details.advanced");
  if (!repeat || !advanced) return;
  repeat.addEventListener("change", function () {
    if (repeat.value !== "custom") return;
    advanced.open = true;
    document.getElementById("rule").focus();
  });
})();
(function () {
  var board = document.getElementById("board");
  if (!board) return;
  var status = document.getElementById("board-status");

  function say(text, ok) {
    status.textContent = text;
    status.className = ok ? "status ok" : "status";
    status.hidden = false;
  }

  function cardsOf(list) {
    return Array.prototype.slice.call(list.querySelectorAll(":scope > .todo-card"));
  }

  // The keyboard buttons carry indices: keep them true after any move. Down on a column's last
  // card is disabled as Up is on its first (it would write a move that changes nothing and say
  // "Moved"), unless the board has more cards to load, which may belong below it.
  function renumber(list) {
    var cards = cardsOf(list), complete = !document.getElementById("board-more");
    cards.forEach(function (card, index) {
      var up = card.querySelector(".move-up"), down = card.querySelector(".move-down");
      var column = card.querySelector("select[name=column]");
      if (up) { up.value = String(Math.max(index - 1, 0)); up.disabled = index === 0; }
      if (down) { down.value = String(index + 1); down.disabled = complete && index === cards.length - 1; }
      if (column) column.value = list.dataset.columnId;
    });
  }

  function setRevision(card, revision) {
    card.dataset.revision = String(revision);
    card.querySelectorAll("input[name=revision]").forEach(function (input) { input.value = String(revision); });
  }

  function titleOf(card) {
    return card.querySelector(".title").textContent.trim();
  }

  // move_todo_task through the page's JSON endpoint; resolves to null or the error's message.
  function send(card, columnId, index) {
    card.setAttribute("aria-busy", "true");
    return fetch("/todos/tasks/" + encodeURIComponent(card.dataset.taskId) + "/drop", {
      method: "POST",
      credentials: "same-origin",
      referrerPolicy: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": board.dataset.csrf },
      body: JSON.stringify({ revision: Number(card.dataset.revision), column: columnId, index: index })
    }).then(function (response) {
      return response.json().then(function (answer) { return { ok: response.ok, answer: answer }; });
    }).then(function (result) {
      card.removeAttribute("aria-busy");
      if (result.ok && result.answer.ok) {
        setRevision(card, result.answer.task.revision);
        return null;
      }
      var error = result.answer && result.answer.error;
      if (error && error.code === "REVISION_CONFLICT") {
        return mesqSay("“%(title)s” changed meanwhile (another tab or app): reload the board, then move it again.", { title: titleOf(card) });
      }
      return mesqSay("%(error)s Reload the board to see the latest order.", { error: error ? error.message : mesqSay("The move was refused.") });
    }).catch(function () {
      card.removeAttribute("aria-busy");
      return mesqSay("Could not reach MeSQ; nothing was moved.");
    });
  }

  function place(card, list, index) {
    var others = cardsOf(list).filter(function (c) { return c !== card; });
    list.insertBefore(card, others[index] || null);
  }

  function dropped(event) {
    if (event.from === event.to && event.oldIndex === event.newIndex) return;
    var card = event.item;
    send(card, event.to.dataset.columnId, event.newIndex).then(function (problem) {
      if (problem) {
        place(card, event.from, event.oldIndex);
        say(problem, false);
      } else {
        say(mesqSay("Moved “%(title)s”.", { title: titleOf(card) }), true);
      }
      renumber(event.from);
      renumber(event.to);
    });
  }

  function keyboardMove(event) {
    var form = event.target.closest("form.move-form");
    if (!form) return;
    event.preventDefault();
    var card = form.closest(".todo-card"), from = card.parentElement;
    var columnId = form.querySelector("select[name=column]").value;
    var list = document.getElementById("column-" + columnId);
    if (!list) { form.submit(); return; }
    var button = event.submitter;
    var index = button && button.name === "index" ? Number(button.value) : cardsOf(list).filter(function (c) {
      return c !== card;
    }).length;
    send(card, columnId, index).then(function (problem) {
      if (problem) { say(problem, false); return; }
      place(card, list, index);
      renumber(from);
      renumber(list);
      var again = card.querySelector(button && button.classList.contains("move-down") ? ".move-down" : ".move-up");
      (again && !again.disabled ? again : card.querySelector("summary")).focus();
      say(mesqSay("Moved “%(title)s”.", { title: titleOf(card) }), true);
    });
  }

  // Escape closes an open "Move" menu and returns focus to its toggle.
  function closeMenu(event) {
    if (event.key !== "Escape") return;
    var menu = event.target.closest("details.move[open]");
    if (!menu) return;
    menu.open = false;
    menu.querySelector("summary").focus();
  }

  // Columns: dragged by their handle (update_todo_column `index`, the place among the open
  // columns); each column's menu has Move left / right for the keyboard (a post and a reload).
  function columnsOf() {
    return Array.prototype.slice.call(board.querySelectorAll(":scope > section.todo-column"));
  }

  function renumberColumns() {
    var all = columnsOf();
    all.forEach(function (section, index) {
      var left = section.querySelector(".move-left"), right = section.querySelector(".move-right");
      if (left) { left.value = String(Math.max(index - 1, 0)); left.disabled = index === 0; }
      if (right) { right.value = String(index + 1); right.disabled = index === all.length - 1; }
    });
  }

  function columnName(section) {
    return section.querySelector("h2").textContent.trim();
  }

  function columnDropped(event) {
    if (event.oldIndex === event.newIndex) return;
    var section = event.item;
    section.setAttribute("aria-busy", "true");
    fetch("/todos/columns/" + encodeURIComponent(section.dataset.columnId) + "/drop", {
      method: "POST",
      credentials: "same-origin",
      referrerPolicy: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": board.dataset.csrf },
      body: JSON.stringify({ revision: Number(section.dataset.revision), index: event.newIndex })
    }).then(function (response) {
      return response.json().then(function (answer) { return { ok: response.ok, answer: answer }; });
    }).catch(function () {
      return { ok: false, answer: { error: { message: mesqSay("Could not reach MeSQ; nothing was moved.") } } };
    }).then(function (result) {
      section.removeAttribute("aria-busy");
      if (result.ok && result.answer.ok) {
        section.dataset.revision = String(result.answer.column.revision);
        section.querySelectorAll(".column-menu input[name=revision]").forEach(function (input) {
          input.value = String(result.answer.column.revision);
        });
        say(mesqSay("Moved column “%(name)s”.", { name: columnName(section) }), true);
      } else {
        var others = columnsOf().filter(function (c) { return c !== section; });
        board.insertBefore(section, others[event.oldIndex] || null);
        var error = result.answer && result.answer.error;
        say(mesqSay("%(error)s Reload the board to see the latest order.", { error: error ? error.message : mesqSay("The move was refused.") }), false);
      }
      renumberColumns();
    });
  }

  board.addEventListener("submit", keyboardMove);
  board.addEventListener("keydown", closeMenu);
  // A completed card the done rule moved lands on top of the done column, and "Load more"
  // appends cards (and then removes its link after the last page): renumber every list.
  function renumberAll() {
    board.querySelectorAll("ol.cards").forEach(renumber);
  }
  document.body.addEventListener("htmx:oobAfterSwap", renumberAll);
  document.body.addEventListener("htmx:afterSettle", renumberAll);
  renumberAll();
  if (typeof Sortable === "undefined") return;
  Sortable.create(board, {
    group: "todo-columns",
    draggable: "section.todo-column",
    handle: ".column-handle",
    animation: 120,
    ghostClass: "sortable-ghost",
    forceFallback: true,
    fallbackTolerance: 3,
    onEnd: columnDropped
  });
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
