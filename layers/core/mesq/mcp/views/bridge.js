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
      inbox: "Inbox", error: "Error", field: "Field", before: "Before", after: "After", moved: "Moved",
      matchedBy: "matched by", board: "Board", changes: "Changes", results: "Results", memo: "Memo",
      attachments: "Attachments", done: "done" },
    zh: { loading: "正在等待结果…", empty: "没有内容。", complete: "完成", undo: "撤销", undone: "已撤销",
      notUndone: "未撤销", open: "打开", due: "截止", priority: "优先级", inbox: "收件箱", error: "错误",
      field: "字段", before: "之前", after: "之后", moved: "已移动", matchedBy: "匹配方式", board: "看板",
      changes: "更改", results: "结果", memo: "备忘录", attachments: "附件", done: "已完成" }
  };
  /* The SDK sends ui/notifications/size-changed itself (autoResize) as the content grows. */
  var app = new McpExtApps.App({ name: "mesq-" + document.body.getAttribute("data-view"), version: "1" }, {},
    { autoResize: true });
  var last = null, render = null, shown = null;
  function context() { return app.getHostContext() || {}; }
  function lang() { return /^zh/i.test(context().locale || navigator.language || "") ? "zh" : "en"; }
  function t(key) { return STRINGS[lang()][key] || key; }
  function applyContext() {
    document.documentElement.setAttribute("data-theme", context().theme === "dark" ? "dark" : "light");
    document.documentElement.setAttribute("lang", lang() === "zh" ? "zh-CN" : "en");
  }
  /* Renders again only for a new result or a new language: a theme change is CSS (data-theme), and
     an unneeded render would replace the DOM under a click in progress and close what Open showed. */
  function rerender() {
    if (!render || !last || (shown && shown.result === last && shown.lang === lang())) return;
    shown = { result: last, lang: lang() };
    render(envelope(last));
  }
  function envelope(result) {
    if (result.structuredContent) return result.structuredContent;
    try { return JSON.parse(result.content[0].text); } catch (e) { return { error: { message: "unreadable result" } }; }
  }
  /* Registered before connect(): the host may send the result right after the handshake. */
  app.ontoolresult = function (result) { last = result; rerender(); };
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
  /* tools/call through the host; resolves with the MeSQ envelope ({data} or {error}). */
  function callTool(name, args) {
    return app.callServerTool({ name: name, arguments: args }).then(envelope);
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
      show(el("p", { class: "error", role: "alert", text: t("error") + ": " + (error && error.message || error) }));
    });
  }
  return { start: start, readResource: readResource, t: t, el: el, show: show, callTool: callTool, lang: lang };
})();
