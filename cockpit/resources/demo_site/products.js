// Demo Shop catalogue: fixed data, the same on every load.
// price is in cents; rating is out of 5.
window.PRODUCTS = [
  { id: "wireless-headphones", name: "Wireless Headphones", price: 5999, rating: 4.4, icon: "headphones", color: "#3b6ea8",
    description: "Over-ear Bluetooth headphones with 30-hour battery life and a soft carrying case." },
  { id: "noise-cancelling-headphones", name: "Noise-Cancelling Headphones", price: 12900, rating: 4.7, icon: "headphones", color: "#2f3b4c",
    description: "Active noise cancelling headphones for travel, with a quick-charge USB-C port." },
  { id: "studio-headphones", name: "Studio Monitor Headphones", price: 8900, rating: 4.5, icon: "headphones", color: "#8a4b2d",
    description: "Closed-back wired headphones with a flat sound for mixing and recording." },
  { id: "kids-headphones", name: "Kids Headphones", price: 2499, rating: 4.1, icon: "headphones", color: "#d0527a",
    description: "Lightweight headphones with an 85 dB volume limit and a bendable headband." },
  { id: "sport-earbuds", name: "Sport Earbuds", price: 3450, rating: 4.2, icon: "earbuds", color: "#2e8b57",
    description: "Sweat-resistant in-ear headphones with ear hooks for running and the gym." },
  { id: "coffee-grinder", name: "Burr Coffee Grinder", price: 4500, rating: 4.3, icon: "grinder", color: "#6b4f3a",
    description: "Conical burr grinder with 18 settings, from espresso fine to French press coarse." },
  { id: "french-press", name: "Glass French Press", price: 2250, rating: 4.0, icon: "press", color: "#7a6a58",
    description: "One-litre coffee maker with a stainless steel filter and a heat-resistant glass jug." },
  { id: "running-shoes", name: "Trail Running Shoes", price: 7495, rating: 4.6, icon: "shoe", color: "#d9632b",
    description: "Cushioned running shoes with a grippy sole for dirt and gravel trails." },
  { id: "desk-lamp", name: "LED Desk Lamp", price: 2799, rating: 4.2, icon: "lamp", color: "#c99a1a",
    description: "Adjustable desk lamp with five brightness levels and a warm light mode." },
  { id: "backpack", name: "Commuter Backpack", price: 4900, rating: 4.5, icon: "backpack", color: "#4a5d3a",
    description: "Water-resistant 22-litre backpack with a padded laptop sleeve." },
  { id: "water-bottle", name: "Insulated Water Bottle", price: 1995, rating: 4.4, icon: "bottle", color: "#1f8a9a",
    description: "Steel bottle that keeps drinks cold for 24 hours; 750 ml, leak-proof lid." },
  { id: "mechanical-keyboard", name: "Mechanical Keyboard", price: 6900, rating: 4.3, icon: "keyboard", color: "#55536b",
    description: "Compact keyboard with tactile switches and white backlight." }
];

// Featured on the home page, in this order.
window.FEATURED = ["wireless-headphones", "coffee-grinder", "running-shoes", "desk-lamp", "backpack", "noise-cancelling-headphones"];
