import { describeForkServer } from './fork-server-suite.js';

describeForkServer('bubblewrap');
