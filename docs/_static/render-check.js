// After the page has loaded, record on <body> how many images it has and how many decoded,
// so that a headless browser's DOM dump shows whether the page rendered (tests/test_docs.py).
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var loaded = images.filter(function (im) { return im.complete && im.naturalWidth > 0; });
  document.body.setAttribute("data-images", String(images.length));
  document.body.setAttribute("data-images-loaded", String(loaded.length));
});
