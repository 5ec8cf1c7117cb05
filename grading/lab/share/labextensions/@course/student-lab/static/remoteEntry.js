// The course's own JupyterLab extension, loaded by `make lab` (JUPYTER_PATH=grading/lab/share), written by hand as
// a federated module (the container JupyterLab asks for "./extension"), with no build step and no shared packages.
//
// nbgrader 0.9.6's labextension writes the Validate button's and dialog's words as plain strings, never through
// JupyterLab's translator, so no language pack or setting reaches them (issue 42). In a JupyterLab whose interface
// language is Chinese (document.documentElement.lang, set by JupyterLab's translator), this puts the edition's words
// in their place: the button's label and tooltip, and the dialog's title and sentences. The test's own output (the
// <pre> blocks) is never touched.
(function () {
  "use strict";
  var WORDS = {
    zh: {
      "Validate": "验证",
      "Validating...": "正在验证…",
      "Saving...": "正在保存…",
      "Validate Assignment": "验证作业",
      "Validation Results": "验证结果",
      "Validation failed": "验证失败",
      "Version Mismatch": "版本不一致",
      "Cannot save notebook": "无法保存 notebook",
      "Success! Your notebook passes all the tests.": "成功！你的 notebook 通过了全部测试。",
      "The following cell failed:": "下面这个单元格没有通过：",
      "The following cell passed:": "下面这个单元格通过了：",
      "There was an error running the validate command:": "运行验证命令时出错：",
      "The source of the following cell has changed, but it should not have!": "下面这个单元格的内容被改动了，但它不应被改动！"
    }
  };
  var PLACES = ".validate-button, .nbgrader-ErrorDialog, .nbgrader-SuccessDialog";

  function words() {
    var lang = (document.documentElement.lang || "").toLowerCase();
    return lang.indexOf("zh") === 0 ? WORDS.zh : null;
  }

  function relabel() {
    var table = words();
    if (!table) {
      return;
    }
    document.querySelectorAll(PLACES).forEach(function (place) {
      ["title", "aria-label"].forEach(function (name) {
        var value = place.getAttribute(name);
        if (value && Object.prototype.hasOwnProperty.call(table, value)) {
          place.setAttribute(name, table[value]);
        }
      });
      var walker = document.createTreeWalker(place, NodeFilter.SHOW_TEXT);
      var node;
      while ((node = walker.nextNode())) {
        if (node.parentElement && node.parentElement.closest("pre")) {
          continue;
        }
        var text = node.nodeValue.trim();
        if (text && Object.prototype.hasOwnProperty.call(table, text)) {
          node.nodeValue = node.nodeValue.replace(text, table[text]);
        }
      }
    });
  }

  var plugin = {
    id: "@course/student-lab:nbgrader-words",
    description: "nbgrader's Validate button and dialog in the interface's language",
    autoStart: true,
    activate: function () {
      relabel();
      new MutationObserver(relabel).observe(document.body, { childList: true, subtree: true, characterData: true });
    }
  };

  var modules = { "./extension": { __esModule: true, default: [plugin] } };
  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB["@course/student-lab"] = {
    init: function () {},
    get: function (name) {
      if (!Object.prototype.hasOwnProperty.call(modules, name)) {
        return Promise.reject(new Error("@course/student-lab has no module " + name));
      }
      return Promise.resolve(function () { return modules[name]; });
    }
  };
})();
