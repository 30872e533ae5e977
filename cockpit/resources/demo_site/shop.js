// Demo Shop: shared helpers and one init function per page (Shop.page()).
(function () {
  "use strict";
  var CART_KEY = "demo-shop-cart";
  var ORDER_KEY = "demo-shop-last-order";
  var PRODUCTS = window.PRODUCTS || [];

  function $(id) { return document.getElementById(id); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function money(cents) { return "$" + (cents / 100).toFixed(2); }
  function find(id) {
    for (var i = 0; i < PRODUCTS.length; i++) if (PRODUCTS[i].id === id) return PRODUCTS[i];
    return null;
  }
  function param(name) { return new URLSearchParams(location.search).get(name); }
  function productUrl(p) { return "product.html?id=" + encodeURIComponent(p.id); }

  function stars(r, long) {
    var full = Math.round(r), s = "";
    for (var i = 1; i <= 5; i++) s += i <= full ? "\u2605" : "\u2606";
    return '<span class="stars" title="' + r.toFixed(1) + ' out of 5">' + s +
      '<span class="num">' + r.toFixed(1) + (long ? " out of 5" : "") + '</span></span>';
  }

  // Simple line drawings, white on the product's colour.
  var ICONS = {
    headphones: '<path d="M16 40v-8a16 16 0 0 1 32 0v8"/><rect x="11" y="37" width="10" height="15" rx="3" fill="#fff"/><rect x="43" y="37" width="10" height="15" rx="3" fill="#fff"/>',
    earbuds: '<circle cx="22" cy="26" r="7" fill="#fff"/><path d="M22 33v15"/><circle cx="42" cy="26" r="7" fill="#fff"/><path d="M42 33v15"/>',
    grinder: '<rect x="20" y="26" width="24" height="26" rx="3"/><path d="M24 26l4-10h8l4 10M32 16V10h10"/><circle cx="44" cy="10" r="2.5" fill="#fff"/>',
    press: '<rect x="19" y="20" width="22" height="32" rx="2"/><path d="M41 26h5v18h-5M30 20V10M24 10h12M21 30h18"/>',
    shoe: '<path d="M10 44V28h10c2 5 8 7 14 7l14 3c4 1 6 3 6 6v4H10z"/><path d="M20 34l3-2M25 36l3-2"/>',
    lamp: '<path d="M18 52h28M32 52V32l-10-12"/><path d="M16 26l10-14 10 8z" fill="#fff"/>',
    backpack: '<rect x="16" y="18" width="32" height="36" rx="8"/><path d="M26 18v-4a6 6 0 0 1 12 0v4"/><rect x="22" y="36" width="20" height="12" rx="2"/>',
    bottle: '<path d="M27 10h10v6c5 3 6 6 6 10v24a4 4 0 0 1-4 4H25a4 4 0 0 1-4-4V26c0-4 1-7 6-10z"/><path d="M21 30h22"/>',
    keyboard: '<rect x="8" y="22" width="48" height="22" rx="3"/><path d="M14 29h3M21 29h3M28 29h3M35 29h3M42 29h3M49 29h1M14 36h3M21 36h22M47 36h3"/>'
  };
  function icon(p, size) {
    return '<svg class="thumb" width="' + size + '" height="' + size + '" viewBox="0 0 64 64" aria-hidden="true" focusable="false">' +
      '<rect width="64" height="64" rx="8" fill="' + p.color + '"/>' +
      '<g fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round">' +
      (ICONS[p.icon] || "") + '</g></svg>';
  }

  // ---------- cart: [{id, qty}] in localStorage ----------
  function getCart() {
    try {
      var c = JSON.parse(localStorage.getItem(CART_KEY) || "[]");
      return Array.isArray(c) ? c.filter(function (l) { return find(l.id) && l.qty > 0; }) : [];
    } catch { return []; }
  }
  function saveCart(c) { localStorage.setItem(CART_KEY, JSON.stringify(c)); updateCount(); }
  function addToCart(id, qty) {
    var c = getCart();
    for (var i = 0; i < c.length; i++) {
      if (c[i].id === id) { c[i].qty = Math.min(99, c[i].qty + qty); saveCart(c); return; }
    }
    c.push({ id: id, qty: qty });
    saveCart(c);
  }
  function cartLines() {
    return getCart().map(function (l) {
      var p = find(l.id);
      return { id: p.id, name: p.name, price: p.price, qty: l.qty, total: p.price * l.qty };
    });
  }
  function sum(lines) { return lines.reduce(function (a, l) { return a + l.total; }, 0); }
  function updateCount() {
    var n = getCart().reduce(function (a, l) { return a + l.qty; }, 0);
    var el = $("cart-count");
    if (el) el.textContent = String(n);
  }

  // ---------- pages ----------
  function home() {
    var html = (window.FEATURED || []).map(find).filter(Boolean).map(function (p) {
      return '<div class="card">' + icon(p, 84) +
        '<a class="name" href="' + productUrl(p) + '">' + esc(p.name) + '</a>' +
        stars(p.rating) + '<div class="price">' + money(p.price) + '</div></div>';
    }).join("");
    $("featured").innerHTML = html;
  }

  function search() {
    var q = (param("q") || "").trim();
    var box = document.querySelector('input[name="q"]');
    if (box) box.value = q;
    var needle = q.toLowerCase();
    var hits = PRODUCTS.filter(function (p) {
      return !needle || p.name.toLowerCase().indexOf(needle) >= 0 ||
        p.description.toLowerCase().indexOf(needle) >= 0;
    });
    document.title = (q ? "Search: " + q : "All products") + " - Demo Shop";
    var head = $("results-title"), out = $("results");
    if (!hits.length) {
      head.textContent = 'No results for "' + q + '"';
      out.innerHTML = '<p class="muted">Check the spelling or try a shorter word, such as headphones, coffee or shoes.</p>';
      return;
    }
    head.textContent = q ? 'Results for "' + q + '"' : "All products";
    var count = '<p class="muted">' + hits.length + (hits.length === 1 ? " product" : " products") + "</p>";
    out.innerHTML = count + '<ul class="results">' + hits.map(function (p) {
      return '<li class="result">' + icon(p, 64) + '<div class="info">' +
        '<a class="name" href="' + productUrl(p) + '">' + esc(p.name) + '</a>' +
        '<div class="desc">' + esc(p.description) + '</div>' + stars(p.rating) + '</div>' +
        '<div class="price">' + money(p.price) + '</div></li>';
    }).join("") + "</ul>";
  }

  function product() {
    var p = find(param("id") || "");
    var box = $("product");
    if (!p) {
      document.title = "Product not found - Demo Shop";
      box.innerHTML = '<h1>Product not found</h1><p class="muted">There is no product with this address. Try the search box above.</p>';
      return;
    }
    document.title = p.name + " - Demo Shop";
    var opts = "";
    for (var i = 1; i <= 5; i++) opts += '<option value="' + i + '">' + i + "</option>";
    box.innerHTML = '<div class="product">' + icon(p, 280) + '<div class="details">' +
      "<h1>" + esc(p.name) + "</h1>" + stars(p.rating, true) +
      '<div class="price">' + money(p.price) + "</div>" +
      '<p class="desc">' + esc(p.description) + "</p>" +
      '<div class="buy"><label for="qty">Quantity</label><select id="qty" name="qty">' + opts + "</select>" +
      '<button type="button" class="btn" id="add">Add to cart</button></div>' +
      '<div class="added" id="added" role="status" hidden><span id="added-text"></span>' +
      '<a class="btn secondary" href="cart.html">Go to cart</a></div></div></div>';
    $("add").addEventListener("click", function () {
      var qty = parseInt($("qty").value, 10) || 1;
      addToCart(p.id, qty);
      $("added-text").textContent = "Added to cart: " + qty + " \u00d7 " + p.name + ".";
      $("added").hidden = false;
    });
  }

  function linesTable(lines, withRemove) {
    var rows = lines.map(function (l) {
      return "<tr><td>" + esc(l.name) + '</td><td class="num">' + money(l.price) + '</td><td class="num">' + l.qty +
        '</td><td class="num">' + money(l.total) + "</td>" +
        (withRemove ? '<td class="num"><button type="button" class="remove" data-id="' + esc(l.id) +
          '" aria-label="Remove ' + esc(l.name) + '">Remove</button></td>' : "") + "</tr>";
    }).join("");
    return '<table class="lines"><thead><tr><th>Product</th><th class="num">Price</th><th class="num">Qty</th>' +
      '<th class="num">Total</th>' + (withRemove ? "<th></th>" : "") + "</tr></thead><tbody>" + rows +
      '<tr class="total"><td colspan="3">Total</td><td class="num" id="total">' + money(sum(lines)) + "</td>" +
      (withRemove ? "<td></td>" : "") + "</tr></tbody></table>";
  }

  function cart() {
    var box = $("cart"), lines = cartLines();
    if (!lines.length) {
      box.innerHTML = '<p>Your cart is empty.</p><p class="muted">Use the search box above to find products.</p>';
      return;
    }
    box.innerHTML = linesTable(lines, true) +
      '<div class="actions"><a class="btn" href="checkout.html">Proceed to checkout</a></div>';
    var buttons = box.querySelectorAll("button.remove");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener("click", function () {
        var id = this.getAttribute("data-id");
        saveCart(getCart().filter(function (l) { return l.id !== id; }));
        cart();
      });
    }
  }

  function checkout() {
    var lines = cartLines();
    if (!lines.length) {
      $("checkout").innerHTML = '<div class="panel"><p>Your cart is empty.</p><p class="muted">Add a product to your cart before checking out.</p></div>';
      return;
    }
    $("summary").innerHTML = linesTable(lines, false);
    var form = $("checkout-form");
    var fields = Array.prototype.slice.call(form.querySelectorAll("input"));
    // Enter in a field moves to the next field; only the button places the order.
    fields.forEach(function (f, i) {
      f.addEventListener("keydown", function (e) {
        if (e.key !== "Enter") return;
        e.preventDefault();
        var next = fields[i + 1] || $("place-order");
        next.focus();
      });
    });
    form.addEventListener("submit", function () {
      var n = "DS-" + String(Math.floor(100000 + Math.random() * 900000));
      sessionStorage.setItem(ORDER_KEY, JSON.stringify({
        number: n, lines: lines, total: sum(lines),
        name: form.elements.fullname.value, city: form.elements.city.value }));
    });
  }

  function placed() {
    var order = null;
    try { order = JSON.parse(sessionStorage.getItem(ORDER_KEY) || "null"); } catch { /* unreadable: order stays null */ }
    if (!order) order = { number: "DS-" + String(Math.floor(100000 + Math.random() * 900000)), lines: cartLines() };
    order.total = sum(order.lines || []);
    $("order-number").textContent = order.number;
    if (order.name) $("ship-to").textContent = "It will be shipped to " + order.name + (order.city ? ", " + order.city : "") + ".";
    if (order.lines && order.lines.length) $("placed-summary").innerHTML = linesTable(order.lines, false);
    saveCart([]);
  }

  window.Shop = { home: home, search: search, product: product, cart: cart, checkout: checkout, placed: placed,
    page: function (name) { updateCount(); if (this[name]) this[name](); } };
})();
