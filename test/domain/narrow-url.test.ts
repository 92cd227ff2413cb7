import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { channelNarrowUrl, decodeHashComponent, encodeHashComponent, topicNarrowUrl } from '../../src/domain/narrow-url.js';

const Encode = suite('narrow-url: hash components');

Encode('spaces, dots and reserved characters are written with dots, not percents', () => {
  assert.is(encodeHashComponent('lunch plans'), 'lunch.20plans');
  assert.is(encodeHashComponent('v1.2'), 'v1.2E2');
  assert.is(encodeHashComponent('a/b?c#d%e'), 'a.2Fb.3Fc.23d.25e');
  assert.is(encodeHashComponent("(it's)!*"), '.28it.27s.29.21.2A');
  assert.is(encodeHashComponent('café'), 'caf.C3.A9');
});

Encode('the encoding is reversible', () => {
  for (const text of ['lunch plans', 'v1.2', '.', '..%2E', 'a/b?c#d%e', "(it's)!*", 'café 🐙', '', '-_~']) {
    assert.is(decodeHashComponent(encodeHashComponent(text)), text, text);
  }
  assert.is(decodeHashComponent('.zz'), null);
});

Encode('channel and topic URLs', () => {
  assert.is(channelNarrowUrl(7, 'dev team'), '/#narrow/channel/7-dev-team');
  assert.is(topicNarrowUrl(7, 'general', 'a b'), '/#narrow/channel/7-general/topic/a.20b');
});

Encode.run();
