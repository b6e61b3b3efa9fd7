/** Kilograms as a decimal string ("1.500") to whole grams, rounding up. */
export function gramsOf(kilograms: string): number {
  const value = Number(kilograms);
  return Number.isFinite(value) && value > 0 ? Math.ceil(Math.round(value * 1_000_000) / 1000) : 0;
}

/** The longest item side in millimetres from centimetre strings; 0 when no item has dimensions. */
export function longestSideMmOf(items: readonly { lengthCentimetres: string; widthCentimetres: string; heightCentimetres: string }[]): number {
  let longest = 0;
  for (const item of items) {
    for (const side of [item.lengthCentimetres, item.widthCentimetres, item.heightCentimetres]) {
      const cm = Number(side);
      if (side !== "" && Number.isFinite(cm)) longest = Math.max(longest, Math.ceil(Math.round(cm * 1000) / 100));
    }
  }
  return longest;
}
