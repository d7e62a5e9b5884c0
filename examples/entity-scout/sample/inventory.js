import { clamp } from './math.js';

export const MAX_SLOTS = 24;

export class Inventory {
  constructor(owner) {
    this.owner = owner;
    this.items = [];
  }

  add(item) {
    if (this.items.length >= MAX_SLOTS) return false;
    this.items.push(item);
    return true;
  }

  weight() {
    return this.items.reduce((sum, item) => sum + item.weight, 0);
  }
}

export function encumbrance(inventory, strength) {
  return clamp(inventory.weight() / (strength * 10), 0, 1);
}
