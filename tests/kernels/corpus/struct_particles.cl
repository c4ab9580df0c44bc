// Particles as an array of structs in a __global buffer, updated in place; the step parameters are a struct
// passed by value. Each step: v = v * (1 - drag) + g * dt, p = p + v * dt (w components carry the mass along).
typedef struct {
    float4 pos;
    float4 vel;
} Particle;

typedef struct {
    float dt;
    float drag;
    int steps;
    float4 gravity;
} Params;

__kernel void advance_particles(__global Particle* ps, const Params q, const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    Particle p = ps[i];
    for (int s = 0; s < q.steps; s++) {
        p.vel.xyz = p.vel.xyz * (1.0f - q.drag) + q.gravity.xyz * q.dt;
        p.pos.xyz += p.vel.xyz * q.dt;
    }
    ps[i] = p;
    ps[i].vel.w += 1.0f;
}
