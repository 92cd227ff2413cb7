// Descriptions are rendered by a domain rule (realm commands render them too).
export { renderPlainDescription } from '../../domain/descriptions.js';
