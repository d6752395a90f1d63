/* MeSQ MCP Apps bridge: the view side of the ext-apps postMessage JSON-RPC (ui/initialize,
   ui/notifications/initialized, ui/notifications/tool-result, host-context-changed, tools/call).
   Everything the views show is built with textContent: stored text is never parsed as HTML. */
"use strict";
var Mesq = (function () {
  var nextId = 1, pending = {}, handlers = {}, context = {};
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
  function lang() { return /^zh/i.test(context.locale || navigator.language || "") ? "zh" : "en"; }
  function t(key) { return STRINGS[lang()][key] || key; }
  function post(message) { window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*"); }
  function request(method, params) {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject };
      post({ id: id, method: method, params: params || {} });
    });
  }
  function applyContext(ctx) {
    if (!ctx) return;
    Object.assign(context, ctx);
    document.documentElement.setAttribute("data-theme", context.theme === "dark" ? "dark" : "light");
    document.documentElement.setAttribute("lang", lang() === "zh" ? "zh-CN" : "en");
  }
  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) return;
    var msg = event.data;
    if (!msg || msg.jsonrpc !== "2.0") return;
    if (msg.id !== undefined && !msg.method) {
      var waiting = pending[msg.id];
      delete pending[msg.id];
      if (!waiting) return;
      if (msg.error) waiting.reject(new Error(msg.error.message || "error"));
      else waiting.resolve(msg.result);
      return;
    }
    if (msg.method === "ui/notifications/host-context-changed") { applyContext(msg.params); rerender(); }
    else if (msg.method === "ui/notifications/tool-result") { last = msg.params; rerender(); }
    else if (msg.method === "ui/resource-teardown" && msg.id !== undefined) post({ id: msg.id, result: {} });
    else if (msg.id !== undefined) post({ id: msg.id, error: { code: -32601, message: "method not found" } });
  });
  var last = null, render = null;
  function rerender() { if (render && last) render(envelope(last)); }
  function envelope(result) {
    if (result.structuredContent) return result.structuredContent;
    try { return JSON.parse(result.content[0].text); } catch (e) { return { error: { message: "unreadable result" } }; }
  }
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
  function show(node) { var app = document.getElementById("app"); app.replaceChildren(node); }
  /* tools/call through the host; resolves with the MeSQ envelope ({data} or {error}). */
  function callTool(name, args) {
    return request("tools/call", { name: name, arguments: args }).then(envelope);
  }
  function start(view) {
    render = view;
    request("ui/initialize", {
      protocolVersion: "2026-01-26",
      appInfo: { name: "mesq-" + document.body.getAttribute("data-view"), version: "1" },
      appCapabilities: {}
    }).then(function (result) {
      applyContext(result && result.hostContext);
      post({ method: "ui/notifications/initialized", params: {} });
      document.getElementById("status").textContent = t("loading");
      rerender();
    });
  }
  /* resources/read through the host (memo attachments); resolves with the blob contents or null. */
  function readResource(uri) {
    return request("resources/read", { uri: uri }).then(function (r) { return r && r.contents && r.contents[0]; }, function () { return null; });
  }
  return { start: start, readResource: readResource, t: t, el: el, show: show, callTool: callTool, lang: lang };
})();
