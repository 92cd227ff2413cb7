// A client-side reducer applies one event to the state POST /register returned, the way a
// client keeps its copy current. Each resource contributes reducers for its event types.
export type RegisterState = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type ClientEventJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** `me`: the id of the user whose queue it is (clients know it; some events leave it implicit). */
export type Reducer = (state: RegisterState, event: ClientEventJson, me: number) => void;
