// switch_opcodes: a per-element opcode interpreter; neighbouring work-items take different cases.
// Exercises: switch on an int read from memory, fallthrough (between empty and non-empty cases), a default in
// the middle of the body, negative and char-literal case labels (one through a macro), a case label computed
// from constants, return inside a case (the outputs stay unwritten), a nested switch, break inside a loop inside
// a case (leaves the loop only), continue of the enclosing loop from a case, declarations inside case bodies.

#define OP_HALF 'h'
#define OP_BASE 10

__kernel void switch_opcodes(__global const int* op,   /* -3 .. 9, 'h', 'n', OP_BASE + 2 */
                             __global const float* a,  /* [-4, 4] */
                             __global const float* b,  /* [-4, 4] */
                             __global const int* c,    /* 0 .. 200 */
                             __global float* out,      /* n */
                             __global int* count,      /* n */
                             const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const float x = a[i];
    const float y = b[i];
    const int ci = c[i];
    float r = 0.0f;
    int s = 0;
    switch (op[i]) {
    case 0:
        r = x + y;
        break;
    case 1:
        r = x - y;  /* falls through: 2 (x - y) */
    case 2:
        r = r * 2.0f + (op[i] == 2 ? x * y : 0.0f);
        s = 2;
        break;
    default:         /* 7, 8, 9, -3 and anything else; falls into case 3 */
        s = 40;
    case 3:
        r = fabs(x);
        s += 3;
        break;
    case -1:
    case -2:
        return;      /* out and count keep their sentinels */
    case OP_HALF:
        r = 0.5f * x;
        s = 'h';
        break;
    case 'n':
        /* ci % 4, not ci & 3: Oclgrind 21.10 takes the default for every ci & 3 of 4 or more (it runs the
           switch LLVM narrows to i2 wrongly; PoCL and the simulator agree on either spelling) */
        switch (ci % 4) {
        case 0:
            r = x;
            break;
        case 1:
            r = y;
            break;
        default:
            r = x > y ? x : y;
        }
        s = 7;       /* after the nested switch: its break left only that one */
        break;
    case 4: {
        int k;
        for (k = 0; k < 64; ++k) {
            if (k * k > ci)
                break;   /* leaves the loop, not the switch */
            s += k;
        }
        r = (float)k;
        break;
    }
    case 5:
        for (int j = 0; j < 8; ++j) {
            switch ((ci + j) % 3) {
            case 0:
                continue;  /* the for loop's next iteration */
            case 1:
                s += j;
                break;
            default:
                s -= 1;
            }
            s += 100;
        }
        r = -x;
        break;
    case 6:
        ;
        const int d = ci - 100;  /* a declaration in a case body */
        s = d < 0 ? -d : d;
        r = y;
        break;
    case OP_BASE + 2:
        r = x * y;
        s = OP_BASE + 2;
        break;
    }
    out[i] = r;
    count[i] = s;
}
