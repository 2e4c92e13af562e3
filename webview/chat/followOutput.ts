/**
 * Keeps the chat at its newest output while the person reading it is at the bottom, and lets go as
 * soon as they scroll up to read something earlier (scrolling back to the bottom follows again).
 * Content that grows after a render (a streamed reply, a code block, an entry laid out only once it
 * is in view) keeps the view at the end too, not just the render that added it.
 */
const NEAR_BOTTOM_PX = 40;

export class FollowOutput {
  private following = true;
  private frame?: number;
  private lastTop = 0;

  constructor(private readonly scroller: HTMLElement, content: HTMLElement) {
    // Only a move up lets go: entries laid out as they come into view grow the conversation under a
    // view that did not move, which is no sign the user wants to stay there.
    scroller.addEventListener('scroll', () => {
      const top = scroller.scrollTop;
      if (top < this.lastTop - 1) this.following = this.atBottom();
      else if (this.atBottom()) this.following = true;
      this.lastTop = top;
    });
    // Scrolling from inside the observer would resize what it observes in the same frame; the next frame is soon enough.
    new ResizeObserver(() => {
      if (this.following) this.toEndNextFrame();
    }).observe(content);
  }

  /** Whether the view is at (or within a few pixels of) the end. */
  atBottom(): boolean {
    return this.scroller.scrollHeight - this.scroller.scrollTop - this.scroller.clientHeight < NEAR_BOTTOM_PX;
  }

  /** After a render: stay at the end when following. */
  afterRender(): void {
    if (this.following) this.toEnd();
  }

  /** A session opened, resumed or reloaded: show its end and follow it. */
  restart(): void {
    this.following = true;
    this.toEnd();
  }

  /** Something that needs the person (an approval) comes into view whether or not they were following. */
  reveal(element: Element): void {
    element.scrollIntoView({ block: 'nearest' });
    this.lastTop = this.scroller.scrollTop;
    this.following = this.atBottom();
  }

  /**
   * Scrolls to the end now, and again in the frames after until the conversation's height stays the
   * same for two frames: entries scrolled into view are laid out only then, and can grow the
   * conversation back to a height the resize observer already saw (so it would not report it).
   */
  private toEnd(): void {
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.lastTop = this.scroller.scrollTop;
    this.toEndNextFrame();
  }

  private toEndNextFrame(): void {
    if (this.frame !== undefined) return;
    let height = -1;
    let steady = 0;
    let framesLeft = 30;
    const step = () => {
      this.frame = undefined;
      if (!this.following) return;
      const now = this.scroller.scrollHeight;
      steady = now === height ? steady + 1 : 0;
      height = now;
      if (this.scroller.scrollTop < now - this.scroller.clientHeight - 1) {
        this.scroller.scrollTop = now;
        this.lastTop = this.scroller.scrollTop;
      }
      if (steady < 2 && --framesLeft > 0) this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }
}
