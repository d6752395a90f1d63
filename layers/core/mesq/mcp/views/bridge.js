/* MeSQ's thin layer over the official MCP Apps SDK (ext-apps.js, the global McpExtApps): one `App`
   per view speaks the host's postMessage JSON-RPC (ui/initialize, tool result, host context,
   size-changed, teardown); the views call MeSQ only through it (`tools/call`, `resources/read`,
   which the host passes on under its own approval and the caller's scopes).
   Everything the views show is built with textContent: stored text is never parsed as HTML.
   apps.py runs this file and the view's script together in one strict-mode function, after the SDK. */
var Mesq = (function () {
  var STRINGS = {
    en: { loading: "Waiting for the result…", empty: "Nothing to show.", complete: "Complete", undo: "Undo",
      undone: "Undone", notUndone: "Not undone", open: "Open", due: "due", priority: "priority",
      inbox: "Inbox", error: "Error", field: "Field", before: "Before", after: "After", moved: "Moved", moveTo: "Move to",
      matchedBy: "matched by", board: "Board", changes: "Changes", results: "Results", memo: "Memo",
      attachments: "Attachments", backToText: "Back to the text", done: "done", yes: "yes", no: "no", lessRelated: "Less related",
      noCloseMatch: "Nothing matches closely.", more: "More tasks are on the board than this page shows.",
      colon: ": ", comma: ", ", degraded: "Some results may be missing: the search index is still catching up.",
      title: { board: "MeSQ board", memo: "MeSQ memo", results: "MeSQ search results", changes: "MeSQ changes" } },
    zh: { loading: "正在等待结果…", empty: "没有内容。", complete: "完成", undo: "撤销", undone: "已撤销",
      notUndone: "未撤销", open: "打开", due: "截止", priority: "优先级", inbox: "收件箱", error: "错误",
      field: "字段", before: "之前", after: "之后", moved: "已移动", moveTo: "移到", matchedBy: "匹配方式", board: "看板",
      changes: "更改", results: "结果", memo: "笔记", attachments: "附件", backToText: "返回正文", done: "已完成", yes: "是", no: "否",
      lessRelated: "相关性较低", noCloseMatch: "没有高度相关的结果。", more: "看板上还有更多任务，这一页没有全部显示。",
      colon: "：", comma: "，", degraded: "部分结果可能缺失：搜索索引还在更新中。",
      title: { board: "MeSQ 看板", memo: "MeSQ 笔记", results: "MeSQ 搜索结果", changes: "MeSQ 更改记录" } }
  };
  /* The words of the values the views show (priorities, record kinds, actions, search branches,
     fields, actors): the server sends codes; a value not listed here is shown as sent. */
  var WORDS = {
    en: {
      priority: { urgent: "urgent", high: "high", medium: "medium", low: "low", none: "none" },
      status: { NORMAL: "normal", ARCHIVED: "archived", DELETED: "in the trash" },
      source: { web: "Web app", cli: "Command line", api: "API", mcp: "MCP", shortcut: "Shortcut", "import": "Import" },
      kind: { memo: "memo", task: "task", subtask: "subtask", inbox: "inbox item", space: "space", column: "column",
        tag: "tag", todo_task: "task", inbox_item: "inbox item", reading_note: "reading note" },
      action: { create: "created", update: "edited", move: "moved", trash: "moved to trash", restore: "restored",
        "delete": "deleted" },
      branch: { bm25: "words", vector: "meaning", literal: "exact text" },
      actor: { web: "Web app", cli: "Command line" },
      field: { title: "Title", notes: "Notes", due: "Due", priority: "Priority", tags: "Tags", columnId: "Column",
        spaceId: "Space", parentId: "Parent task", position: "Position", done: "Done", completedAt: "Completed",
        deletedAt: "Deleted", content: "Content", pinned: "Pinned", status: "Status", attachments: "Attachments",
        resources: "Attachments", recurrence: "Repeats", reminders: "Reminders", name: "Name", archived: "Archived",
        timezone: "Time zone", isDone: "Done", isDefault: "Default", slug: "Short name", color: "Colour",
        startAt: "Starts", visibility: "Visibility", createdAt: "Created", updatedAt: "Updated", id: "ID",
        contentSource: "Source" }
    },
    zh: {
      priority: { urgent: "紧急", high: "高", medium: "中", low: "低", none: "无" },
      status: { NORMAL: "正常", ARCHIVED: "已归档", DELETED: "在回收站" },
      source: { web: "网页", cli: "命令行", api: "API", mcp: "MCP", shortcut: "快捷指令", "import": "导入" },
      kind: { memo: "笔记", task: "任务", subtask: "子任务", inbox: "收件箱条目", space: "空间", column: "列",
        tag: "标签", todo_task: "任务", inbox_item: "收件箱条目", reading_note: "读书笔记" },
      action: { create: "创建", update: "编辑", move: "移动", trash: "移到回收站", restore: "恢复", "delete": "删除" },
      branch: { bm25: "关键词", vector: "语义", literal: "原文" },
      actor: { web: "网页", cli: "命令行" },
      field: { title: "标题", notes: "备注", due: "截止", priority: "优先级", tags: "标签", columnId: "列",
        spaceId: "空间", parentId: "上级任务", position: "位置", done: "完成", completedAt: "完成时间",
        deletedAt: "删除时间", content: "内容", pinned: "置顶", status: "状态", attachments: "附件",
        recurrence: "重复", reminders: "提醒", name: "名称", archived: "归档", timezone: "时区", isDone: "完成",
        isDefault: "默认", slug: "短名", color: "颜色", startAt: "开始", visibility: "可见性", createdAt: "创建时间",
        updatedAt: "更新时间", id: "编号", resources: "附件", contentSource: "来源" }
    }
  };
  /* A failed call as the person reads it, by the error's code: the server's messages are English
     and written for the model ("merge your change into recoverData..."), so a Chinese host read
     English. DECLINED: the host did not pass the call on (the person refused it, or it failed on
     the way); UNREADABLE: an answer that is no MeSQ envelope. Another code reads as a plain
     failure (in English, the server's own message). */
  var FAILURES = {
    en: { REVISION_CONFLICT: "This record was changed elsewhere in the meantime.", NOT_FOUND: "This record no longer exists.",
      FORBIDDEN: "This connection may not do that.", UNAUTHORIZED: "This connection is no longer signed in.",
      RATE_LIMITED: "Too many requests at once; try again in a moment.",
      NOT_UNDOABLE: "This change cannot be undone.", DECLINED: "The request was not sent.",
      UNREADABLE: "The answer could not be read.", failed: "That did not work." },
    zh: { REVISION_CONFLICT: "这条记录在此期间已在别处修改。", NOT_FOUND: "这条记录已不存在。",
      FORBIDDEN: "当前连接没有权限执行这个操作。", UNAUTHORIZED: "当前连接已失效，需要重新登录。",
      RATE_LIMITED: "请求太频繁，请稍后再试。", NOT_UNDOABLE: "这项更改无法撤销。", DECLINED: "请求没有发出。",
      UNREADABLE: "无法读取返回的结果。", failed: "操作没有成功。" }
  };
  function failure(error) {
    var code = error && error.code, said = FAILURES[lang()][code];
    if (said) return said;
    return lang() === "en" && error && error.message ? String(error.message) : FAILURES[lang()].failed;
  }
  /* The SDK sends ui/notifications/size-changed itself (autoResize) as the content grows. */
  var app = new McpExtApps.App({ name: "mesq-" + document.body.getAttribute("data-view"), version: "1" }, {},
    { autoResize: true });
  var last = null, render = null, shown = null, input = null, account = "", spoken = "";
  /* The account's own zone and the language it chose, which the board's and changes' tools send
     in their result's `_meta` (mcp_apps.py ZONE_META, LANGUAGE_META; each absent while the account
     has set none): every web page shows moments in that zone and words in that language, so a
     view does too, before the host's and the browser's. */
  function noteAccount(result) {
    var meta = result && result._meta, zone = meta && meta["mesq/timeZone"], language = meta && meta["mesq/language"];
    if (typeof zone === "string" && zone) account = zone;
    if (typeof language === "string" && /^(zh|en)\b/i.test(language)) {
      var changed = language !== spoken;
      spoken = language;
      if (changed) applyContext();
    }
  }
  function context() { return app.getHostContext() || {}; }
  function lang() { return /^zh/i.test(spoken || context().locale || navigator.language || "") ? "zh" : "en"; }
  function t(key) { return STRINGS[lang()][key] || key; }
  function word(group, value) { return (WORDS[lang()][group] || {})[value] || String(value); }
  /* Dates and numbers in the language the words are in: the host's own English locale (en-GB) when
     it speaks English too, else en-US. */
  function locale() {
    if (lang() === "zh") return "zh-CN";
    var host = context().locale;
    return host && (!spoken || /^en/i.test(host)) ? host : "en-US";
  }
  /* A moment in the person's zone (the record's own `zone`, else the account's, else the host's,
     else the browser's)
     and language; a due date stays the calendar date it names. Unparseable text is shown as sent.
     `named`: a record's own zone that is not the reader's is named after the time (`EST`,
     `北美东部标准时间`, as the web pages say it), so a 9:00 in New York is not read as 9:00 here. */
  function when(value, zone, named) {
    var date = value && typeof value === "object" ? value.date : null;
    var at = value && typeof value === "object" ? value.at : value;
    try {
      if (date) {
        var parts = String(date).split("-").map(Number);
        return new Intl.DateTimeFormat(locale(), { year: "numeric", month: "short", day: "numeric", weekday: "short" })
          .format(new Date(parts[0], parts[1] - 1, parts[2]));
      }
      var moment = new Date(String(at));
      if (isNaN(moment.getTime())) return String(at || "");
      var options = { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" };
      var zoned = zone || account || context().timeZone;
      if (zoned) options.timeZone = zoned;
      if (named && zone && zone !== readerZone()) options.timeZoneName = lang() === "zh" ? "long" : "short";
      try { return new Intl.DateTimeFormat(locale(), options).format(moment); } catch (e) {
        delete options.timeZone;  // an unknown zone: the browser's
        return new Intl.DateTimeFormat(locale(), options).format(moment);
      }
    } catch (e) { return String(at || date || ""); }
  }
  function readerZone() {
    try { return account || context().timeZone || Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return ""; }
  }
  function applyContext() {
    document.documentElement.setAttribute("data-theme", context().theme === "dark" ? "dark" : "light");
    document.documentElement.setAttribute("lang", lang() === "zh" ? "zh-CN" : "en");
    // The document's title too (apps.py writes the English one): a host or a screen reader may name the frame by it.
    var title = STRINGS[lang()].title[document.body.getAttribute("data-view")];
    if (title) document.title = title;
  }
  /* Renders again only for a new result, language or time zone: a theme change is CSS (data-theme),
     and an unneeded render would replace the DOM under a click in progress and close what Open showed. */
  function rerender() {
    var zone = context().timeZone;
    if (!render || !last || (shown && shown.result === last && shown.lang === lang() && shown.zone === zone)) return;
    shown = { result: last, lang: lang(), zone: zone };
    render(envelope(last));
  }
  function envelope(result) {
    if (result.structuredContent) return result.structuredContent;
    try { return JSON.parse(result.content[0].text); } catch (e) { return { error: { code: "UNREADABLE" } }; }
  }
  /* Registered before connect(): the host may send the result right after the handshake. */
  app.ontoolresult = function (result) { last = result; noteAccount(result); rerender(); };
  /* The arguments the model called the tool with: a view that reads again (the board after a
     move) asks for the same thing, not for everything. */
  app.ontoolinput = function (params) { input = params && params.arguments || null; };
  function toolInput() {
    var copy = {};
    Object.keys(input || {}).forEach(function (k) { copy[k] = input[k]; });
    return copy;
  }
  app.onhostcontextchanged = function () { applyContext(); rerender(); };
  app.onteardown = function () { return {}; };
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function show(node) { document.getElementById("app").replaceChildren(node); }
  /* tools/call through the host; resolves with the MeSQ envelope ({data} or {error}), also when
     the host does not pass the call on, so every view tells the person and gives its button back. */
  function callTool(name, args) {
    return app.callServerTool({ name: name, arguments: args }).then(function (result) {
      noteAccount(result);  // a board read again says the zone and language again (the account may have changed them)
      return envelope(result);
    }, function () {
      return { error: { code: "DECLINED" } };
    });
  }
  /* resources/read through the host (memo attachments); resolves with the blob contents or null. */
  function readResource(uri) {
    return app.readServerResource({ uri: uri }).then(function (r) { return r && r.contents && r.contents[0]; }, function () { return null; });
  }
  function start(view) {
    render = view;
    app.connect(new McpExtApps.PostMessageTransport(window.parent, window.parent)).then(function () {
      applyContext();
      var status = document.getElementById("status");
      if (status) status.textContent = t("loading");
      rerender();
    }, function (error) {
      show(el("p", { class: "error", role: "alert", text: t("error") + t("colon") + (error && error.message || error) }));
    });
  }
  return { start: start, readResource: readResource, t: t, word: word, when: when, el: el, show: show, callTool: callTool,
    lang: lang, failure: failure, toolInput: toolInput };
})();
