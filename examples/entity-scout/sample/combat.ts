export interface Combatant {
  name: string;
  health: number;
  armour: number;
}

export type Outcome = 'hit' | 'miss' | 'critical';

export function resolveAttack(attacker: Combatant, defender: Combatant, roll: number): Outcome {
  if (roll >= 19) return 'critical';
  if (roll + 2 > defender.armour) return 'hit';
  return 'miss';
}

export function applyDamage(defender: Combatant, amount: number): Combatant {
  return { ...defender, health: Math.max(0, defender.health - amount) };
}
