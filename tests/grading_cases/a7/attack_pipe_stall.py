# expect: q5=0
# Outside attacker: writes forged calls of the grader's functions to the protocol pipe and never reads the replies (the grader's writes blocked until the outer limit); writes end at the call's deadline now and the notebook's refused calls end its run.
# %%
# base: the master's solution
# %%
import os as _os, fcntl as _fcntl, time as _time
def _protocol_out():
    for fd in sorted(int(x) for x in _os.listdir('/proc/self/fd')):
        if fd > 2:
            try:
                if _fcntl.fcntl(fd, _fcntl.F_GETFL) & _os.O_ACCMODE == _os.O_WRONLY and _os.readlink(f'/proc/self/fd/{fd}').startswith('pipe:'):
                    return fd
            except OSError:
                pass

def selection_accuracy(mechanism, utilities, sensitivity, epsilon, num_trials, rng):
    # forged callback requests, never reading the replies: the grader's replies fill the pipe and its write blocks
    fd = _protocol_out()
    line = b'{"callback": "0000000000000000", "args": [], "kwargs": {}}\n'
    for _ in range(20):
        _os.write(fd, line * 500)
    _time.sleep(10**6)
