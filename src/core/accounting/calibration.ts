/**
 * Learns how far the local estimate is from what the provider reports: tiktoken under-counts
 * Claude by 15–30% on code, for instance. The factor is the mean of reported ÷ estimated over the
 * most recent requests; its error is the mean absolute deviation of those ratios from it.
 */
export interface CalibrationView {
  factor: number;
  error: number;
  samples: number;
}

const WINDOW = 50;

export class Calibration {
  private ratios: number[] = [];

  observe(estimated: number, reported: number): void {
    if (!(estimated > 0) || !(reported > 0) || !Number.isFinite(estimated) || !Number.isFinite(reported)) return;
    const ratio = reported / estimated;
    if (ratio < 0.2 || ratio > 5) return; // a broken report, not a tokenizer difference
    this.ratios.push(ratio);
    if (this.ratios.length > WINDOW) this.ratios.shift();
  }

  view(): CalibrationView {
    const n = this.ratios.length;
    if (n === 0) return { factor: 1, error: 0, samples: 0 };
    const factor = this.ratios.reduce((a, b) => a + b, 0) / n;
    const error = this.ratios.reduce((a, r) => a + Math.abs(r - factor), 0) / n;
    return { factor, error, samples: n };
  }
}
