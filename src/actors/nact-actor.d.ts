// nact's actor class (its module has no types of its own), which runtime.ts offers as the base of
// an actor that is its own state.
declare module 'nact/lib/actor.js' {
  const actor: { readonly Actor: abstract new (parent: unknown, name: string) => object };
  export default actor;
}
