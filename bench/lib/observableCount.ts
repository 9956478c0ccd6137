import { Observable, Subject } from "rxjs";

/**
 * Counts the RxJS Observables constructed and the `subscribe` calls made in this process while
 * it is installed, without touching rxjs on disk: it hooks the prototypes of the rxjs instance
 * this process loaded (the one `src/` and `operators/` import), so it works on whatever the
 * pipeline is built from. Exact for rxjs 7.8 (dist/cjs and dist/esm alike), where every
 * construction takes one of three paths:
 *
 * - `new Observable(subscribe)` (every creation function: `of`, `from`, `defer`, `timer`, …)
 *   assigns `this._subscribe`: counted by a setter for `_subscribe` on `Observable.prototype`;
 * - `new Observable()` followed by `observable.source = this` (`lift`, which every operator goes
 *   through, `Subject#asObservable`, `ConnectableObservable`): counted by a setter for `source`;
 * - a `Subject` (and `BehaviorSubject`, `ReplaySubject`, `AsyncSubject`, the `AnonymousSubject`
 *   that `Subject#lift` builds) assigns `this.observers` in its constructor: counted by a setter
 *   for `observers` on `Subject.prototype`, and not again by its `source`.
 *
 * Each setter then defines the own property the assignment would have made, so behaviour is
 * unchanged. Subscriptions are calls of `Observable.prototype.subscribe`, which no rxjs class
 * overrides: one per subscriber in a chain (`of(1).pipe(map(f)).subscribe()` is two).
 * `install` checks itself on a few known shapes and throws if rxjs stopped taking these paths.
 */
export interface ObservableCount {
  readonly observables: number;
  readonly subscriptions: number;
}

export interface ObservableCounter {
  /** What was constructed and subscribed since `install` (or the last `reset`). */
  read(): ObservableCount;
  reset(): void;
  /** Puts the prototypes back as they were; objects created meanwhile keep working. */
  uninstall(): void;
}

/** Thrown by `installObservableCounter` when its hooks no longer see rxjs's constructions exactly. */
export class ObservableCounterDriftError extends Error {
  override readonly name = "ObservableCounterDriftError";
}

let installed = false;

export function installObservableCounter(): ObservableCounter {
  if (installed) throw new Error("an ObservableCounter is already installed");
  let observables = 0;
  let subscriptions = 0;
  const observableProto = Observable.prototype as unknown as Record<string, unknown>;
  const subjectProto = Subject.prototype as unknown as Record<string, unknown>;
  const saved = {
    _subscribe: Object.getOwnPropertyDescriptor(observableProto, "_subscribe"),
    source: Object.getOwnPropertyDescriptor(observableProto, "source"),
    subscribe: Object.getOwnPropertyDescriptor(observableProto, "subscribe"),
    observers: Object.getOwnPropertyDescriptor(subjectProto, "observers"),
  };
  const defaultSubscribe = saved._subscribe?.value as unknown;
  const originalSubscribe = saved.subscribe?.value as (this: Observable<unknown>, ...args: unknown[]) => unknown;
  if (typeof defaultSubscribe !== "function" || typeof originalSubscribe !== "function" || saved.source !== undefined || saved.observers !== undefined) {
    throw new ObservableCounterDriftError("rxjs's Observable/Subject prototypes are not shaped as the counter expects (rxjs 7.8)");
  }
  const own = (target: object, key: string, value: unknown) => Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });

  Object.defineProperty(observableProto, "_subscribe", {
    configurable: true,
    get: () => defaultSubscribe,
    set(this: object, value: unknown) {
      observables += 1;
      own(this, "_subscribe", value);
    },
  });
  Object.defineProperty(observableProto, "source", {
    configurable: true,
    get: () => undefined,
    set(this: object, value: unknown) {
      if (!(this instanceof Subject)) observables += 1;
      own(this, "source", value);
    },
  });
  Object.defineProperty(subjectProto, "observers", {
    configurable: true,
    get: () => undefined,
    set(this: object, value: unknown) {
      observables += 1;
      own(this, "observers", value);
    },
  });
  own(observableProto, "subscribe", function subscribe(this: Observable<unknown>, ...args: unknown[]) {
    subscriptions += 1;
    return originalSubscribe.apply(this, args);
  });
  installed = true;

  const counter: ObservableCounter = {
    read: () => ({ observables, subscriptions }),
    reset: () => {
      observables = 0;
      subscriptions = 0;
    },
    uninstall: () => {
      if (!installed) return;
      for (const [key, descriptor] of Object.entries(saved)) {
        const proto = key === "observers" ? subjectProto : observableProto;
        if (descriptor === undefined) delete proto[key];
        else Object.defineProperty(proto, key, descriptor);
      }
      installed = false;
    },
  };
  try {
    selfCheck(counter);
  } catch (err) {
    counter.uninstall();
    throw err;
  }
  counter.reset();
  return counter;
}

/** Known shapes with known counts: if rxjs changed how it constructs, the counter says so instead of reporting a wrong figure. */
function selfCheck(counter: ObservableCounter): void {
  const expect = (what: string, build: () => void, want: ObservableCount) => {
    counter.reset();
    build();
    const got = counter.read();
    if (got.observables !== want.observables || got.subscriptions !== want.subscriptions) {
      throw new ObservableCounterDriftError(`${what}: counted ${got.observables} observables / ${got.subscriptions} subscriptions, expected ${want.observables} / ${want.subscriptions}`);
    }
  };
  expect("new Observable(fn)", () => new Observable<number>((s) => s.complete()).subscribe(), { observables: 1, subscriptions: 1 });
  expect("lift", () => new Observable<number>((s) => s.complete()).lift<number>(undefined).subscribe(), { observables: 2, subscriptions: 2 });
  expect("new Subject()", () => new Subject<number>().subscribe(), { observables: 1, subscriptions: 1 });
}
